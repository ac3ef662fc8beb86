/**
 * A part this process put into a local directory store was hashed by the
 * put's own check (place-file.ts); its first read trusts that check while
 * the file keeps the size and modification time the checked bytes had, so
 * a read right after an export hashes nothing again. Bytes rewritten after
 * the put are hashed again and found, linked or copied.
 */
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { crossDevice, failure, makePart, storedFile, tempDirs, upload } from './part-fixtures.ts';

// Every whole-file hash of the stores goes through digestFile: counted, and run as it is.
const hashed = vi.hoisted(() => ({ files: [] as string[] }));
vi.mock('../../../src/runtime/digest-file.ts', async (original) => {
  const actual = await original<typeof import('../../../src/runtime/digest-file.ts')>();
  return {
    ...actual,
    digestFile: async (path: string) => {
      hashed.files.push(path);
      return actual.digestFile(path);
    },
  };
});

const freshRoot = tempDirs('sluice-put-check-');

describe.each([
  ['linked', undefined],
  ['copied', crossDevice],
])('a part %s into place by this process', (_how, link) => {
  it('is read the first time without being hashed again', async () => {
    const root = freshRoot();
    const store = createLocalBytes({ root, ...(link === undefined ? {} : { link }) });
    const parts = [makePart(freshRoot(), 200_000), makePart(freshRoot(), 100_000)];
    const refs = await upload(store, parts);
    hashed.files.length = 0;
    for (const ref of refs) {
      const lease = await store.localPath(ref);
      expect(lease.path).toBe(storedFile(root, ref));
      lease.release();
    }
    expect(hashed.files).toEqual([]);
    store.close();
  });

  it('is hashed again, and found, once its bytes were rewritten after the put', async () => {
    const root = freshRoot();
    const store = createLocalBytes({ root, ...(link === undefined ? {} : { link }) });
    const part = makePart(freshRoot(), 200_000);
    const [ref] = await upload(store, [part]);
    const path = storedFile(root, ref!);
    const flipped = Buffer.from(part.content);
    flipped[100_000] = (flipped[100_000] ?? 0) ^ 0xff;
    writeFileSync(path, flipped);
    // A time stamp that differs from the put's even where the file system keeps whole seconds only.
    const { atime, mtime } = statSync(path);
    utimesSync(path, atime, new Date(mtime.getTime() + 5000));
    hashed.files.length = 0;
    const error = await failure(store.localPath(ref!));
    expect([error.code, error.details?.reason]).toEqual(['ARTIFACT_CORRUPT', 'HASH_MISMATCH']);
    expect(hashed.files).toEqual([path]);
    store.close();
  });
});
