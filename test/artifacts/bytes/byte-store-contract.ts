/**
 * The ByteStore contract, as one suite that every backend runs. A backend
 * is a factory that makes a fresh, empty store (its own directory or key
 * prefix) and gives the suite what it needs to reach behind the store:
 * tamper with stored bytes, count backend calls, take the backend away.
 * What a backend declares it cannot do (presign, a cache, an outage a test
 * can cause) is asserted as refused, or skipped with the reason said.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ByteStore } from '../../../src/artifacts/bytes/byte-store.ts';
import { skipNote } from '../../helpers/skip-note.ts';
import { countParquetRows, failure, filesUnder, makeParquetPart, makePart, sha256Of } from './part-fixtures.ts';

export interface ByteStoreHarness {
  store: ByteStore;
  /** Replaces the stored bytes of a part behind the store's back. */
  tamper(sha256: string, content: Uint8Array): Promise<void>;
  /** The local cache directory, for a backend that fetches into one. */
  cacheDir?: string;
  /** Backend calls so far of one kind (GetObject, UploadPart, ...), for a backend that counts them. */
  calls?: (kind: string) => number;
  /** Takes the backend away and brings it back; `secrets` must appear in no error. */
  outage?: { stop(): Promise<void>; start(): Promise<void>; secrets: string[] };
  close(): Promise<void>;
}

export interface HarnessOptions {
  cacheBytes: number;
  /** The signing clock of download links. */
  now?: () => Date;
}

export interface Traits {
  remote: boolean;
  presign: boolean;
  outage: boolean;
}

const MB = 1024 * 1024;

export function testByteStore(name: string, traits: Traits, make: (options: HarnessOptions) => Promise<ByteStoreHarness>): void {
  describe(`byte store contract: ${name}`, () => {
    const work = mkdtempSync(join(tmpdir(), 'sluice-bytes-parts-'));
    const open: ByteStoreHarness[] = [];
    const fresh = async (options: Partial<HarnessOptions> = {}) => {
      const harness = await make({ cacheBytes: 64 * MB, ...options });
      open.push(harness);
      return harness;
    };
    afterEach(async () => {
      for (const harness of open.splice(0)) await harness.close();
    });
    afterAll(() => rmSync(work, { recursive: true, force: true }));
    const remoteTitle = (title: string) => skipNote(!traits.remote, title, `${name} reads its own files and keeps no cache`);
    const remote = it.skipIf(!traits.remote);

    it('gives back every byte that was put, and leaves the local file in place', async () => {
      const { store } = await fresh();
      const part = makePart(work, 100_000);
      expect(await store.putPart(part.path, part.sha256, part.bytes)).toEqual({ written: true });
      const lease = await store.localPath(part.sha256, part.bytes);
      expect(readFileSync(lease.path).equals(part.content)).toBe(true);
      lease.release();
      lease.release();
      expect(readFileSync(part.path).equals(part.content)).toBe(true);
    });

    it('hands DuckDB a file it reads as the Parquet that was put', async () => {
      const { store } = await fresh();
      const part = await makeParquetPart(work, 5000);
      await store.putPart(part.path, part.sha256, part.bytes);
      const lease = await store.localPath(part.sha256, part.bytes);
      expect(await countParquetRows(lease.path)).toBe(5000);
      lease.release();
    });

    it('stores a part once: a second put writes nothing', async () => {
      const { store, calls } = await fresh();
      const part = makePart(work, 10_000);
      await store.putPart(part.path, part.sha256, part.bytes);
      const uploads = () => (calls?.('PutObject') ?? 0) + (calls?.('UploadPart') ?? 0);
      const before = uploads();
      expect(await store.putPart(part.path, part.sha256, part.bytes)).toEqual({ written: false });
      expect(uploads()).toBe(before);
      expect((await store.listParts({ limit: 10 })).parts).toEqual([part.sha256]);
    });

    it('refuses bytes that are not the ones their address names, and stores nothing', async () => {
      const { store } = await fresh();
      const part = makePart(work, 20_000);
      const other = sha256Of(Buffer.from('something else'));
      expect((await failure(store.putPart(part.path, other, part.bytes))).code).toBe('ARTIFACT_CORRUPT');
      expect((await failure(store.putPart(part.path, part.sha256, part.bytes - 1))).details).toMatchObject({ reason: 'SIZE_MISMATCH' });
      expect((await failure(store.putPart(part.path, part.sha256, part.bytes + 1))).details).toMatchObject({ reason: 'SIZE_MISMATCH' });
      expect((await store.listParts({ limit: 10 })).parts).toEqual([]);
      expect((await failure(store.localPath(other, part.bytes))).details).toMatchObject({ reason: 'PART_MISSING' });
    });

    it('uploads a part larger than one chunk in several chunks, and gives it back whole', async () => {
      const { store, calls } = await fresh();
      const part = makePart(work, 12 * MB);
      await store.putPart(part.path, part.sha256, part.bytes);
      if (calls !== undefined) {
        expect(calls('CreateMultipartUpload')).toBe(1);
        expect(calls('UploadPart')).toBeGreaterThanOrEqual(2);
        expect(calls('CompleteMultipartUpload')).toBe(1);
        expect(calls('PutObject')).toBe(0);
      }
      const lease = await store.localPath(part.sha256, part.bytes);
      expect(sha256Of(readFileSync(lease.path))).toBe(part.sha256);
      lease.release();
    });

    it('lists stored parts in bounded pages, in address order, each once', async () => {
      const { store } = await fresh();
      const parts = Array.from({ length: 5 }, () => makePart(work, 1000));
      for (const part of parts) await store.putPart(part.path, part.sha256, part.bytes);
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const result = await store.listParts({ after, limit: 2 });
        expect(result.parts.length).toBeLessThanOrEqual(2);
        seen.push(...result.parts);
        if (result.next === null) break;
        after = result.next;
      }
      expect(seen).toEqual(parts.map((p) => p.sha256).sort());
      expect((await failure(store.listParts({ limit: 0 }))).code).toBe('VALIDATION_ERROR');
    });

    it('deletes a part (twice is fine): it is no longer listed nor handed out', async () => {
      const { store, cacheDir } = await fresh();
      const part = makePart(work, 3000);
      await store.putPart(part.path, part.sha256, part.bytes);
      (await store.localPath(part.sha256, part.bytes)).release();
      await store.deletePart(part.sha256);
      await store.deletePart(part.sha256);
      expect((await store.listParts({ limit: 10 })).parts).toEqual([]);
      const missing = await failure(store.localPath(part.sha256, part.bytes));
      expect([missing.code, missing.details?.reason]).toEqual(['NOT_FOUND', 'PART_MISSING']);
      if (cacheDir !== undefined) expect(filesUnder(cacheDir)).toEqual([]);
    });

    it('detects stored bytes that no longer match their hash, and keeps none of them', async () => {
      const { store, tamper, cacheDir } = await fresh();
      const part = makePart(work, 50_000);
      await store.putPart(part.path, part.sha256, part.bytes);
      const flipped = Buffer.from(part.content);
      flipped[25_000] = (flipped[25_000] ?? 0) ^ 0xff;
      await tamper(part.sha256, flipped);
      const changed = await failure(store.localPath(part.sha256, part.bytes));
      expect([changed.code, changed.status, changed.details?.reason]).toEqual(['ARTIFACT_CORRUPT', 500, 'HASH_MISMATCH']);
      await tamper(part.sha256, part.content.subarray(0, 40_000));
      expect((await failure(store.localPath(part.sha256, part.bytes))).details).toMatchObject({ reason: 'SIZE_MISMATCH' });
      if (cacheDir !== undefined) expect(filesUnder(cacheDir)).toEqual([]);
      // Nothing was poisoned: once the right bytes are back, the part reads again.
      await tamper(part.sha256, part.content);
      const lease = await store.localPath(part.sha256, part.bytes);
      expect(readFileSync(lease.path).equals(part.content)).toBe(true);
      lease.release();
    });

    it('refuses anything but a SHA-256 as an address (no path escapes the store)', async () => {
      const { store } = await fresh();
      const part = makePart(work, 10);
      for (const bad of ['../../../etc/passwd', part.sha256.toUpperCase(), part.sha256.slice(1), `${part.sha256.slice(0, 62)}/.`]) {
        expect((await failure(store.putPart(part.path, bad, part.bytes))).code).toBe('VALIDATION_ERROR');
        expect((await failure(store.localPath(bad, part.bytes))).code).toBe('VALIDATION_ERROR');
        expect((await failure(store.deletePart(bad))).code).toBe('VALIDATION_ERROR');
        expect((await failure(store.presignGet(bad, 60))).code).toBe('VALIDATION_ERROR');
      }
    });

    remote(remoteTitle('keeps the cache within its bound, evicting the least recently used part'), async () => {
      const { store, cacheDir, calls } = await fresh({ cacheBytes: 3000 });
      const [a, b, c, d] = Array.from({ length: 4 }, () => makePart(work, 1000));
      const use = async (part: typeof a) => (await store.localPath(part!.sha256, part!.bytes)).release();
      for (const part of [a, b, c, d]) await store.putPart(part!.path, part!.sha256, part!.bytes);
      const cached = () => filesUnder(cacheDir!).map((f) => f.name.replace('.parquet', '')).sort();
      for (const part of [a, b, c, a, d]) await use(part);
      expect(calls!('GetObject')).toBe(4);
      expect(cached()).toEqual([a!.sha256, c!.sha256, d!.sha256].sort());
      await use(b);
      expect(cached()).toEqual([a!.sha256, b!.sha256, d!.sha256].sort());
      expect(filesUnder(cacheDir!).reduce((sum, f) => sum + f.size, 0)).toBeLessThanOrEqual(3000);
    });

    remote(remoteTitle('never evicts a part while it is being read, and evicts it once it is not'), async () => {
      const { store, cacheDir } = await fresh({ cacheBytes: 2000 });
      const [a, b, c, d] = Array.from({ length: 4 }, () => makePart(work, 1000));
      for (const part of [a, b, c, d]) await store.putPart(part!.path, part!.sha256, part!.bytes);
      const cached = () => filesUnder(cacheDir!).map((f) => f.name.replace('.parquet', '')).sort();
      const held = await store.localPath(a!.sha256, a!.bytes);
      for (const part of [b, c, d]) (await store.localPath(part!.sha256, part!.bytes)).release();
      // The least recently used part, but being read: the others made way instead.
      expect(cached()).toEqual([a!.sha256, d!.sha256].sort());
      expect(readFileSync(held.path).equals(a!.content)).toBe(true);
      held.release();
      (await store.localPath(b!.sha256, b!.bytes)).release();
      expect(cached()).toEqual([b!.sha256, d!.sha256].sort());
    });

    remote(remoteTitle('downloads a part once however many readers miss it at the same time'), async () => {
      const { store, calls } = await fresh();
      const part = makePart(work, 2 * MB);
      await store.putPart(part.path, part.sha256, part.bytes);
      const leases = await Promise.all(Array.from({ length: 6 }, () => store.localPath(part.sha256, part.bytes)));
      expect(calls!('GetObject')).toBe(1);
      expect(new Set(leases.map((l) => l.path)).size).toBe(1);
      expect(sha256Of(readFileSync(leases[0]!.path))).toBe(part.sha256);
      for (const lease of leases) lease.release();
    });

    it.skipIf(!traits.presign)(skipNote(!traits.presign, 'hands out a download link that works, for the time asked, and then expires', `${name} declares presign false`), async () => {
      const { store } = await fresh();
      const part = makePart(work, 4000);
      await store.putPart(part.path, part.sha256, part.bytes);
      const url = await store.presignGet(part.sha256, 120);
      expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('120');
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(part.content)).toBe(true);
      // Signed ten minutes ago: a link for fifteen minutes still works, one for a minute has expired.
      const past = await fresh({ now: () => new Date(Date.now() - 600_000) });
      await past.store.putPart(part.path, part.sha256, part.bytes);
      expect((await fetch(await past.store.presignGet(part.sha256, 900))).status).toBe(200);
      const stale = await fetch(await past.store.presignGet(part.sha256, 60));
      expect(stale.status).toBe(403);
      expect((await failure(store.presignGet(part.sha256, 3600))).code).toBe('VALIDATION_ERROR');
    });

    it.skipIf(traits.presign)(skipNote(traits.presign, 'refuses download links it cannot make', `${name} makes them`), async () => {
      const { store } = await fresh();
      expect(store.capabilities.presign).toBe(false);
      const part = makePart(work, 10);
      expect((await failure(store.presignGet(part.sha256, 60))).code).toBe('UNSUPPORTED_CAPABILITY');
    });

    it.skipIf(!traits.outage)(skipNote(!traits.outage, 'answers STORAGE_UNAVAILABLE while the backend is away, and recovers when it is back', `${name} cannot be taken away by a test`), async () => {
      const { store, outage, cacheDir } = await fresh();
      const [cached, uncached, later] = Array.from({ length: 3 }, () => makePart(work, 5000));
      for (const part of [cached!, uncached!]) await store.putPart(part.path, part.sha256, part.bytes);
      (await store.localPath(cached!.sha256, cached!.bytes)).release();
      await store.probe();
      await outage!.stop();
      const errors = [
        await failure(store.probe()),
        await failure(store.localPath(uncached!.sha256, uncached!.bytes)),
        await failure(store.putPart(later!.path, later!.sha256, later!.bytes)),
        await failure(store.listParts({ limit: 5 })),
        await failure(store.deletePart(uncached!.sha256)),
      ];
      for (const error of errors) {
        expect([error.code, error.status, error.details?.retryable]).toEqual(['STORAGE_UNAVAILABLE', 503, true]);
        const said = `${error.message} ${JSON.stringify(error.details)}`;
        for (const secret of outage!.secrets) expect(said).not.toContain(secret);
      }
      // A part already in the cache is still readable; the failed download left nothing behind.
      const lease = await store.localPath(cached!.sha256, cached!.bytes);
      expect(readFileSync(lease.path).equals(cached!.content)).toBe(true);
      lease.release();
      expect(filesUnder(cacheDir!).map((f) => f.name)).toEqual([`${cached!.sha256}.parquet`]);
      await outage!.start();
      await store.probe();
      const back = await store.localPath(uncached!.sha256, uncached!.bytes);
      expect(readFileSync(back.path).equals(uncached!.content)).toBe(true);
      back.release();
      expect(await store.putPart(later!.path, later!.sha256, later!.bytes)).toEqual({ written: true });
    });
  });
}
