/**
 * The background check of a local directory store's parts after a restart:
 * it hashes every stored part once, reads after it hash nothing again, bytes
 * tampered before the restart (same size, same modification time) are still
 * ARTIFACT_CORRUPT, a read that comes first hashes only its own part, and
 * the parts read last before the restart are hashed first. The pass waits
 * while reads keep asking for parts.
 */
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PartRef } from '../../../src/artifacts/bytes/byte-store.ts';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { PartVerifier } from '../../../src/artifacts/bytes/part-verifier.ts';
import { failure, makePart, storedFile, tempDirs, upload } from './part-fixtures.ts';

const freshDir = tempDirs('sluice-part-verifier-');
const keyOf = (ref: PartRef) => `${ref.location}/${ref.name}`;

/** A store with three uploads of two parts each, written by one process that has since stopped. */
async function storedBefore(): Promise<{ root: string; uploads: PartRef[][]; content: Map<string, Buffer> }> {
  const root = freshDir();
  const staging = freshDir();
  const store = createLocalBytes({ root });
  const uploads: PartRef[][] = [];
  const content = new Map<string, Buffer>();
  for (let u = 0; u < 3; u++) {
    const parts = [makePart(staging, 30_000 + u), makePart(staging, 20_000 + u)];
    const refs = await upload(store, parts);
    refs.forEach((ref, i) => content.set(keyOf(ref), parts[i]!.content));
    uploads.push(refs);
  }
  store.close();
  return { root, uploads, content };
}

function verifierOf(root: string, recentWriteMs?: number): PartVerifier {
  return new PartVerifier(root, join(root, 'objects'), recentWriteMs === undefined ? {} : { recentWriteMs });
}

const read = (v: PartVerifier, root: string, ref: PartRef) => v.verify(keyOf(ref), ref.location, storedFile(root, ref), ref.sha256, ref.bytes);

describe('the background check of stored parts', () => {
  it('hashes every stored part once after start, and reads after it hash none again', async () => {
    const { root, uploads } = await storedBefore();
    const v = verifierOf(root);
    await v.start();
    expect(v.hashes).toBe(6);
    for (const refs of uploads) for (const ref of refs) await read(v, root, ref);
    expect(v.hashes).toBe(6);
    v.stop();
  });

  it('still finds bytes changed before the restart at the same size and modification time', async () => {
    const { root, uploads } = await storedBefore();
    const ref = uploads[1]![0]!;
    const file = storedFile(root, ref);
    const { atime, mtime } = statSync(file);
    writeFileSync(file, Buffer.alloc(ref.bytes, 7));
    utimesSync(file, atime, mtime);
    const v = verifierOf(root);
    await v.start();
    const error = await failure(read(v, root, ref));
    expect(error.code).toBe('ARTIFACT_CORRUPT');
    expect(error.details).toMatchObject({ reason: 'HASH_MISMATCH', part: ref.sha256 });
    // The other parts read as before.
    await read(v, root, uploads[1]![1]!);
    v.stop();
  });

  it('hashes again a part changed after the pass hashed it', async () => {
    const { root, uploads } = await storedBefore();
    const v = verifierOf(root);
    await v.start();
    const ref = uploads[2]![1]!;
    writeFileSync(storedFile(root, ref), Buffer.alloc(ref.bytes, 1));
    utimesSync(storedFile(root, ref), new Date(), new Date(Date.now() + 5000));
    expect((await failure(read(v, root, ref))).code).toBe('ARTIFACT_CORRUPT');
    v.stop();
  });

  it('hashes only the part a read reaches when the read comes before the pass', async () => {
    const { root, uploads } = await storedBefore();
    const v = verifierOf(root);
    await read(v, root, uploads[0]![1]!);
    expect(v.hashes).toBe(1);
    await v.start();
    expect(v.hashes).toBe(6);
    v.stop();
  });

  it('takes the locations read last before the restart first, then the newest written', async () => {
    const { root, uploads } = await storedBefore();
    const before = verifierOf(root, 0);
    await read(before, root, uploads[0]![0]!);
    await read(before, root, uploads[1]![0]!);
    await before.flushRecent();
    before.stop();
    const after = verifierOf(root);
    const order = (await after.plan()).map((p) => p.key);
    // Read last first: upload 1, then upload 0; upload 2 (never read) after them.
    expect(order.slice(0, 2).every((k) => k.startsWith(`${uploads[1]![0]!.location}/`))).toBe(true);
    expect(order.slice(2, 4).every((k) => k.startsWith(`${uploads[0]![0]!.location}/`))).toBe(true);
    expect(order.slice(4).every((k) => k.startsWith(`${uploads[2]![0]!.location}/`))).toBe(true);
    after.stop();
  });

  it('ignores a damaged list of recent reads and files that are not parts', async () => {
    const { root, uploads } = await storedBefore();
    writeFileSync(join(root, 'recently-read.json'), '["../../etc", 42, {"a":1}');
    writeFileSync(join(root, 'objects', uploads[0]![0]!.location, 'notes.txt'), 'x');
    const v = verifierOf(root);
    const plan = await v.plan();
    expect(plan).toHaveLength(6);
    await v.start();
    expect(v.hashes).toBe(6);
    v.stop();
  });

  it('is started by the store, and a read of the store after it is served as put', async () => {
    const { root, uploads, content } = await storedBefore();
    const store = createLocalBytes({ root });
    store.verifyStored?.();
    const ref = uploads[2]![0]!;
    const lease = await store.localPath(ref);
    expect(statSync(lease.path).size).toBe(content.get(keyOf(ref))!.length);
    store.close();
  });

  it('waits while reads keep asking for parts, then hashes the rest', async () => {
    const { root, uploads } = await storedBefore();
    const v = new PartVerifier(root, join(root, 'objects'), { readsQuietMs: 400 });
    // A read first: it hashes its own part only.
    await read(v, root, uploads[0]![0]!);
    expect(v.hashes).toBe(1);
    const pass = v.start();
    // Reads keep coming, each within the quiet time of the one before: the pass hashes nothing meanwhile.
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 200));
      await read(v, root, uploads[0]![0]!);
      expect(v.hashes).toBe(1);
    }
    // Once the reads stop, it goes on and hashes the five others, once each.
    await pass;
    expect(v.hashes).toBe(6);
    v.stop();
  });
});
