/**
 * A part this process put into a local directory store was hashed by the
 * put's own check (place-file.ts); its first read trusts that check while
 * the file keeps the size and modification time the checked bytes had, so
 * a read right after an export hashes nothing again. Bytes rewritten after
 * the put are hashed again and found, linked or copied.
 *
 * The export hashed the part before the put: told the stamp it was hashed
 * at, a put that links the same file counts that hash as its check while
 * the file still shows it; bytes rewritten since, or copied to another
 * disk, are hashed as before.
 */
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { digestFile } from '../../../src/runtime/digest-file.ts';
import { crossDevice, failure, makePart, partRef, storedFile, tempDirs, upload } from './part-fixtures.ts';

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

describe('a part put with the stamp the export hashed it at', () => {
  it('is linked without being hashed again, and read without being hashed either', async () => {
    const root = freshRoot();
    const store = createLocalBytes({ root });
    const part = makePart(freshRoot(), 300_000);
    const { sha256, stamp } = await digestFile(part.path);
    expect(sha256).toBe(part.sha256);
    const ref = partRef(store.newLocation(), part);
    hashed.files.length = 0;
    await store.putPart(ref, part.path, { hashedAt: stamp });
    const lease = await store.localPath(ref);
    lease.release();
    expect(hashed.files).toEqual([]);
    store.close();
  });

  it('is hashed and refused when its bytes were rewritten after the export hashed them', async () => {
    const root = freshRoot();
    const store = createLocalBytes({ root });
    const part = makePart(freshRoot(), 300_000);
    const { stamp } = await digestFile(part.path);
    const flipped = Buffer.from(part.content);
    flipped[150_000] = (flipped[150_000] ?? 0) ^ 0xff;
    writeFileSync(part.path, flipped);
    const { atime, mtime } = statSync(part.path);
    utimesSync(part.path, atime, new Date(mtime.getTime() + 5000));
    hashed.files.length = 0;
    const error = await failure(store.putPart(partRef(store.newLocation(), part), part.path, { hashedAt: stamp }));
    expect([error.code, error.details?.reason]).toEqual(['ARTIFACT_CORRUPT', 'HASH_MISMATCH']);
    expect(hashed.files).toHaveLength(1);
    store.close();
  });

  it('is checked as it is copied when it cannot be linked, whatever the stamp says', async () => {
    const root = freshRoot();
    const store = createLocalBytes({ root, link: crossDevice });
    const part = makePart(freshRoot(), 300_000);
    const { stamp } = await digestFile(part.path);
    // A wrong reference with the file's true stamp: only a check of the bytes themselves refuses it.
    const wrong = { ...partRef(store.newLocation(), part), sha256: 'ab'.repeat(32) };
    const error = await failure(store.putPart(wrong, part.path, { hashedAt: stamp }));
    expect([error.code, error.details?.reason]).toEqual(['ARTIFACT_CORRUPT', 'HASH_MISMATCH']);
    store.close();
  });
});
