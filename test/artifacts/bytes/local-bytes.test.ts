/**
 * The local directory store: the contract suite, and what only a directory
 * can show: a failed or interrupted write leaves nothing under an address,
 * and temporary files a crash left are swept once they are old.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { testByteStore } from './byte-store-contract.ts';
import { failure, filesUnder, makePart } from './part-fixtures.ts';

const roots: string[] = [];
function freshRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'sluice-local-bytes-'));
  roots.push(root);
  return root;
}
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

testByteStore('local directory', { remote: false, presign: false, outage: false }, async () => {
  const root = freshRoot();
  return {
    store: createLocalBytes({ root }),
    // The layout is the store's own business; this test reaches behind it on purpose.
    tamper: async (sha256, content) => writeFileSync(join(root, 'parts', sha256.slice(0, 2), `${sha256}.parquet`), content),
    close: async () => undefined,
  };
});

describe('local directory store on disk', () => {
  it('leaves nothing under the address, nor a temporary file, when a put fails part way', async () => {
    const root = freshRoot();
    const store = createLocalBytes({ root });
    const part = makePart(freshRoot(), 300_000);
    // The file holds fewer bytes than claimed, as if its writer had died: the check stops the copy.
    writeFileSync(part.path, part.content.subarray(0, 100_000));
    expect((await failure(store.putPart(part.path, part.sha256, part.bytes))).code).toBe('ARTIFACT_CORRUPT');
    expect(filesUnder(root)).toEqual([]);
  });

  it('sweeps temporary files older than an hour on its first put, and keeps younger ones', async () => {
    const root = freshRoot();
    const tmp = join(root, 'parts-tmp');
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'abandoned'), 'x');
    writeFileSync(join(tmp, 'in-progress'), 'y');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(join(tmp, 'abandoned'), twoHoursAgo, twoHoursAgo);
    const part = makePart(freshRoot(), 10);
    await createLocalBytes({ root }).putPart(part.path, part.sha256, part.bytes);
    expect(filesUnder(tmp).map((f) => f.name)).toEqual(['in-progress']);
  });

  it('reports a directory it cannot create as storage unavailable, not retryable, without its path', async () => {
    const blocker = join(freshRoot(), 'a-file');
    writeFileSync(blocker, '');
    // A root below a regular file can never be created: the disk, not the caller, is at fault.
    const error = await failure(createLocalBytes({ root: join(blocker, 'store') }).probe());
    expect([error.code, error.details]).toEqual(['STORAGE_UNAVAILABLE', { retryable: false, reason: 'ENOTDIR' }]);
    expect(error.message).not.toContain(blocker);
  });
});
