/**
 * A read leases its parts a few at a time, on the real local byte store:
 * the files come back in part order whatever order the leases end in, no
 * more than LEASE_CONCURRENCY are taken at once, and when parts fail their
 * check the first failing part's error is what the read answers, with every
 * lease already taken given back.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ByteStore, PartRef } from '../../../src/artifacts/bytes/byte-store.ts';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { LEASE_CONCURRENCY, leaseParts } from '../../../src/artifacts/store/readable.ts';
import type { StoreContext } from '../../../src/artifacts/store/store-context.ts';
import type { BlobRecord } from '../../../src/catalog/ports/artifacts-port.ts';
import { blobHashOf, failure, makePart, upload } from '../bytes/part-fixtures.ts';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-lease-parts-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Ten stored parts of different sizes, and a context whose byte store counts leases in flight and given back. */
async function storedParts() {
  const root = freshDir();
  const staging = freshDir();
  const bytes = createLocalBytes({ root });
  const parts = Array.from({ length: 10 }, (_, i) => makePart(staging, 200_000 - i * 15_000));
  const refs = await upload(bytes, parts);
  const blob: BlobRecord = {
    hash: blobHashOf(parts),
    location: refs[0]!.location,
    parts: refs.map((ref, i) => ({ name: ref.name, sha256: ref.sha256, bytes: ref.bytes, rows: i + 1 })),
    sizeBytes: parts.reduce((sum, p) => sum + p.bytes, 0),
  };
  const counts = { inFlight: 0, mostInFlight: 0, taken: 0, released: 0 };
  const counted: ByteStore = {
    ...bytes,
    localPath: async (ref: PartRef) => {
      counts.inFlight += 1;
      counts.mostInFlight = Math.max(counts.mostInFlight, counts.inFlight);
      try {
        const lease = await bytes.localPath(ref);
        counts.taken += 1;
        return { path: lease.path, release: () => (counts.released += 1, lease.release()) };
      } finally {
        counts.inFlight -= 1;
      }
    },
  };
  const ctx = { bytes: counted } as unknown as StoreContext;
  const file = (ref: PartRef) => join(root, 'objects', ref.location, ref.name);
  return { ctx, blob, refs, counts, file, close: () => bytes.close() };
}

describe('leasing the parts of a read', () => {
  it('gives the files in part order, a few leases at a time', async () => {
    const { ctx, blob, refs, counts, file, close } = await storedParts();
    const { files, release } = await leaseParts(ctx, blob);
    expect(files.map((f) => f.path)).toEqual(refs.map(file));
    expect(files.map((f) => f.rows)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(counts.mostInFlight).toBeGreaterThan(1);
    expect(counts.mostInFlight).toBeLessThanOrEqual(LEASE_CONCURRENCY);
    release();
    expect(counts.released).toBe(10);
    // A window of the parts: those only, in order.
    const window = await leaseParts(ctx, blob, 3, 4);
    expect(window.files.map((f) => f.path)).toEqual(refs.slice(3, 7).map(file));
    window.release();
    close();
  });

  it("answers the first failing part's error and gives back every lease it took", async () => {
    const { ctx, blob, refs, counts, file, close } = await storedParts();
    // Parts 4 and 7 changed on disk, at the same size.
    for (const i of [7, 4]) writeFileSync(file(refs[i]!), Buffer.alloc(refs[i]!.bytes, 1));
    const error = await failure(leaseParts(ctx, blob));
    expect(error.code).toBe('ARTIFACT_CORRUPT');
    expect(error.details).toMatchObject({ part: refs[4]!.sha256 });
    expect(counts.inFlight).toBe(0);
    expect(counts.released).toBe(counts.taken);
    expect(counts.taken).toBeGreaterThanOrEqual(4);
    close();
  });
});
