/**
 * The part cache on its own, with sources made up by the test: what survives
 * a restart (and that finding it out waits for first use), how a failed or
 * cut-off download ends (nothing kept, every waiting reader told, the next
 * reader tries again), and that leases count readers one by one.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { PartCache, type PartSource } from '../../../src/artifacts/bytes/part-cache.ts';
import { failure, filesUnder, makePart, type TestPart } from './part-fixtures.ts';

const work = mkdtempSync(join(tmpdir(), 'sluice-part-cache-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(work, `cache-${(dirs += 1)}`);

/** A source that serves `content` and counts how often it was asked. */
function counted(content: Uint8Array): PartSource & { calls: number } {
  const source = Object.assign(async () => {
    source.calls += 1;
    return Readable.from([Buffer.from(content)]);
  }, { calls: 0 });
  return source;
}

const cachedNames = (dir: string) => filesUnder(dir).map((f) => f.name.replace('.parquet', '')).sort();
const parts = (n: number, size = 1000): TestPart[] => Array.from({ length: n }, () => makePart(work, size));

describe('part cache', () => {
  it('touches no disk when made; its first use creates and scans the directory', async () => {
    const dir = freshDir();
    const cache = new PartCache({ dir, maxBytes: 10_000 });
    expect(existsSync(dir)).toBe(false);
    const [a] = parts(1);
    (await cache.acquire(a!.sha256, a!.bytes, counted(a!.content))).release();
    expect(cachedNames(dir)).toEqual([a!.sha256]);
  });

  it('after a restart serves what it held without fetching, in the old LRU order, and drops unfinished downloads', async () => {
    const dir = freshDir();
    const [a, b, c, d] = parts(4);
    const first = new PartCache({ dir, maxBytes: 3000 });
    for (const part of [a, b, c]) (await first.acquire(part!.sha256, part!.bytes, counted(part!.content))).release();
    // Last used: b long ago, then a, then c.
    const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000);
    utimesSync(join(dir, `${b!.sha256}.parquet`), at(300), at(300));
    utimesSync(join(dir, `${a!.sha256}.parquet`), at(200), at(200));
    utimesSync(join(dir, `${c!.sha256}.parquet`), at(100), at(100));
    writeFileSync(join(dir, 'tmp', 'cut-short'), 'half a part');

    const second = new PartCache({ dir, maxBytes: 3000 });
    const sourceA = counted(a!.content);
    (await second.acquire(a!.sha256, a!.bytes, sourceA)).release();
    expect(sourceA.calls).toBe(0);
    expect(filesUnder(join(dir, 'tmp'))).toEqual([]);
    (await second.acquire(d!.sha256, d!.bytes, counted(d!.content))).release();
    expect(cachedNames(dir)).toEqual([a!.sha256, c!.sha256, d!.sha256].sort());
    expect(second.usage()).toMatchObject({ bytes: 3000, pinned: 0 });
  });

  it('fits a bound that shrank since the last run, oldest parts first', async () => {
    const dir = freshDir();
    const [a, b, c] = parts(3);
    const before = new PartCache({ dir, maxBytes: 3000 });
    for (const part of [a, b, c]) (await before.acquire(part!.sha256, part!.bytes, counted(part!.content))).release();
    for (const [part, secondsAgo] of [[a, 30], [b, 20], [c, 10]] as const) {
      utimesSync(join(dir, `${part!.sha256}.parquet`), new Date(Date.now() - secondsAgo * 1000), new Date(Date.now() - secondsAgo * 1000));
    }
    const after = new PartCache({ dir, maxBytes: 2000 });
    (await after.acquire(c!.sha256, c!.bytes, counted(c!.content))).release();
    expect(cachedNames(dir)).toEqual([b!.sha256, c!.sha256].sort());
  });

  it('tells every reader waiting on a download that failed its check, keeps nothing, and lets the next one try again', async () => {
    const dir = freshDir();
    const cache = new PartCache({ dir, maxBytes: 10_000 });
    const [a] = parts(1);
    const wrong = counted(Buffer.alloc(a!.bytes, 7));
    const outcomes = await Promise.all([1, 2, 3].map(() => failure(cache.acquire(a!.sha256, a!.bytes, wrong))));
    expect(wrong.calls).toBe(1);
    expect(outcomes.map((e) => [e.code, e.details?.reason])).toEqual(Array(3).fill(['ARTIFACT_CORRUPT', 'HASH_MISMATCH']));
    expect(filesUnder(dir)).toEqual([]);
    expect(cache.usage().bytes).toBe(0);
    const right = counted(a!.content);
    (await cache.acquire(a!.sha256, a!.bytes, right)).release();
    expect(right.calls).toBe(1);
  });

  it('keeps nothing of a download cut off part way, and passes on why', async () => {
    const dir = freshDir();
    const cache = new PartCache({ dir, maxBytes: 1_000_000 });
    const [a] = parts(1, 200_000);
    const cut = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const source: PartSource = async () =>
      Readable.from(
        (async function* () {
          yield a!.content.subarray(0, 50_000);
          throw cut;
        })(),
      );
    await expect(cache.acquire(a!.sha256, a!.bytes, source)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(filesUnder(dir)).toEqual([]);
  });

  it('fetches again a part whose file was removed behind its back', async () => {
    const dir = freshDir();
    const cache = new PartCache({ dir, maxBytes: 10_000 });
    const [a] = parts(1);
    const source = counted(a!.content);
    (await cache.acquire(a!.sha256, a!.bytes, source)).release();
    rmSync(join(dir, `${a!.sha256}.parquet`));
    const lease = await cache.acquire(a!.sha256, a!.bytes, source);
    expect(source.calls).toBe(2);
    expect(existsSync(lease.path)).toBe(true);
    lease.release();
  });

  it('counts each reader: a part goes only when the last lease is released, and a lease released twice counts once', async () => {
    const dir = freshDir();
    const cache = new PartCache({ dir, maxBytes: 1000 });
    const [a, b] = parts(2);
    const first = await cache.acquire(a!.sha256, a!.bytes, counted(a!.content));
    const second = await cache.acquire(a!.sha256, a!.bytes, counted(a!.content));
    first.release();
    first.release();
    const other = await cache.acquire(b!.sha256, b!.bytes, counted(b!.content));
    other.release();
    // b went at once (unpinned, over the bound); a stays for its remaining reader.
    expect(cachedNames(dir)).toEqual([a!.sha256]);
    expect(cache.usage().pinned).toBe(1);
    second.release();
    (await cache.acquire(b!.sha256, b!.bytes, counted(b!.content))).release();
    expect(cachedNames(dir)).toEqual([b!.sha256]);
  });

  it('ignores files in its directory that are not parts', async () => {
    const dir = freshDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'operator was here');
    const cache = new PartCache({ dir, maxBytes: 10_000 });
    const [a] = parts(1);
    (await cache.acquire(a!.sha256, a!.bytes, counted(a!.content))).release();
    expect(cache.usage().bytes).toBe(1000);
  });
});
