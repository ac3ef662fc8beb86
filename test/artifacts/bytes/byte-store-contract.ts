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
import type { ByteStore, PartRef } from '../../../src/artifacts/bytes/byte-store.ts';
import { skipNote } from '../../helpers/skip-note.ts';
import { blobHashOf, countParquetRows, failure, filesUnder, makeParquetPart, makePart, partRef, sha256Of, upload } from './part-fixtures.ts';

export interface ByteStoreHarness {
  store: ByteStore;
  /** Replaces the stored bytes of a part behind the store's back. */
  tamper(part: PartRef, content: Uint8Array): Promise<void>;
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

async function listAll(store: ByteStore, limit: number): Promise<{ location: string; modifiedAt: Date }[][]> {
  const pages: { location: string; modifiedAt: Date }[][] = [];
  let after: string | undefined;
  for (let page = 0; page < 50; page += 1) {
    const result = await store.listLocations({ after, limit });
    pages.push(result.locations);
    if (result.next === null) return pages;
    after = result.next;
  }
  throw new Error('the listing never ended');
}

const locationsOf = async (store: ByteStore) => (await listAll(store, 1000)).flat().map((entry) => entry.location);

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

    it('gives back every byte that was put, after the staged file is gone', async () => {
      const { store } = await fresh();
      const part = makePart(work, 100_000);
      const [ref] = await upload(store, [part]);
      // What a commit does next: its staging directory goes.
      rmSync(part.path);
      const lease = await store.localPath(ref!);
      expect(readFileSync(lease.path).equals(part.content)).toBe(true);
      lease.release();
      lease.release();
    });

    it('hands DuckDB a file it reads as the Parquet that was put', async () => {
      const { store } = await fresh();
      const part = await makeParquetPart(work, 5000);
      const [ref] = await upload(store, [part]);
      const lease = await store.localPath(ref!);
      expect(await countParquetRows(lease.path)).toBe(5000);
      lease.release();
    });

    it('gives two uploads of the same content locations of their own: deleting one leaves the other readable', async () => {
      const { store, calls } = await fresh();
      const part = makePart(work, 10_000);
      const [first, second] = [store.newLocation(), store.newLocation()];
      expect(first).not.toBe(second);
      for (const location of [first, second]) await store.putPart(partRef(location, part), part.path);
      const uploads = () => (calls?.('PutObject') ?? 0) + (calls?.('UploadPart') ?? 0);
      if (calls !== undefined) expect(uploads()).toBe(2);
      expect(await locationsOf(store)).toEqual([first, second].sort());
      await store.deleteLocation(first);
      expect(await locationsOf(store)).toEqual([second]);
      expect((await failure(store.localPath(partRef(first, part)))).details).toMatchObject({ reason: 'PART_MISSING' });
      const lease = await store.localPath(partRef(second, part));
      expect(readFileSync(lease.path).equals(part.content)).toBe(true);
      lease.release();
    });

    it('refuses bytes that are not the ones their reference names, and stores nothing', async () => {
      const { store } = await fresh();
      const part = makePart(work, 20_000);
      const location = store.newLocation();
      const other = sha256Of(Buffer.from('something else'));
      const wrong = (change: Partial<PartRef>) => ({ ...partRef(location, part), ...change });
      expect((await failure(store.putPart(wrong({ sha256: other }), part.path))).code).toBe('ARTIFACT_CORRUPT');
      expect((await failure(store.putPart(wrong({ bytes: part.bytes - 1 }), part.path))).details).toMatchObject({ reason: 'SIZE_MISMATCH' });
      expect((await failure(store.putPart(wrong({ bytes: part.bytes + 1 }), part.path))).details).toMatchObject({ reason: 'SIZE_MISMATCH' });
      expect(await locationsOf(store)).toEqual([]);
      expect((await failure(store.localPath(partRef(location, part)))).details).toMatchObject({ reason: 'PART_MISSING' });
    });

    it('uploads a part in one streamed PUT, and one past the single-PUT size in several chunks, and gives both back whole', async () => {
      const { store, calls } = await fresh();
      const single = makePart(work, 9 * MB);
      const [singleRef] = await upload(store, [single]);
      if (calls !== undefined) {
        expect(calls('PutObject')).toBe(1);
        expect(calls('CreateMultipartUpload')).toBe(0);
      }
      const large = makePart(work, 12 * MB);
      const [largeRef] = await upload(store, [large]);
      if (calls !== undefined) {
        expect(calls('CreateMultipartUpload')).toBe(1);
        expect(calls('UploadPart')).toBeGreaterThanOrEqual(2);
        expect(calls('CompleteMultipartUpload')).toBe(1);
        expect(calls('PutObject')).toBe(1);
      }
      for (const [ref, part] of [[singleRef, single], [largeRef, large]] as const) {
        const lease = await store.localPath(ref!);
        expect(sha256Of(readFileSync(lease.path))).toBe(part.sha256);
        lease.release();
      }
    });

    it('lists every upload once, in bounded pages in order, each with when it was last written', async () => {
      const { store } = await fresh();
      const same = makePart(work, 1000);
      const before = Date.now();
      const uploads = [
        await upload(store, [same]),
        await upload(store, [same]),
        await upload(store, [makePart(work, 1000), makePart(work, 2000), makePart(work, 10)]),
        await upload(store, [makePart(work, 1000)]),
        await upload(store, [makePart(work, 3000), makePart(work, 1000)]),
      ];
      const after = Date.now();
      const pages = await listAll(store, 2);
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(2);
      const seen = pages.flat();
      expect(seen.map((entry) => entry.location)).toEqual(uploads.map((refs) => refs[0]!.location).sort());
      // Backends keep times to the second (S3) or to a clock tick (file systems): compared at that grain.
      for (const { modifiedAt } of seen) {
        expect(modifiedAt.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
        expect(modifiedAt.getTime()).toBeLessThanOrEqual(after + 1000);
      }
      expect((await failure(store.listLocations({ limit: 0 }))).code).toBe('VALIDATION_ERROR');
      expect((await failure(store.listLocations({ after: '../x', limit: 2 }))).code).toBe('VALIDATION_ERROR');
    });

    it('deletes an upload (twice is fine, an absent one too): it is no longer listed nor handed out', async () => {
      const { store } = await fresh();
      const parts = [makePart(work, 3000), makePart(work, 4000)];
      const refs = await upload(store, parts);
      const location = refs[0]!.location;
      await store.deleteLocation(location);
      await store.deleteLocation(location);
      await store.deleteLocation(store.newLocation());
      expect(await locationsOf(store)).toEqual([]);
      for (const ref of refs) {
        const missing = await failure(store.localPath(ref));
        expect([missing.code, missing.details?.reason]).toEqual(['NOT_FOUND', 'PART_MISSING']);
      }
    });

    it('lists the files an upload holds and opens a part\u2019s stored bytes as they are, unchecked, for a store check', async () => {
      const { store, tamper } = await fresh();
      const parts = [makePart(work, 30_000), makePart(work, 20_000)];
      const refs = await upload(store, parts);
      const location = refs[0]!.location;
      expect(await store.listParts(location)).toEqual([
        { name: refs[0]!.name, bytes: 30_000 },
        { name: refs[1]!.name, bytes: 20_000 },
      ]);
      expect(await store.listParts(store.newLocation())).toEqual([]);
      const read = async (ref: PartRef) => {
        const chunks: Buffer[] = [];
        for await (const chunk of await store.openPart(ref)) chunks.push(Buffer.from(chunk));
        return Buffer.concat(chunks);
      };
      expect((await read(refs[1]!)).equals(parts[1]!.content)).toBe(true);
      // Damaged bytes come back as stored (the check hashes them itself), never refused or repaired.
      const flipped = Buffer.from(parts[0]!.content);
      flipped[10] = (flipped[10] ?? 0) ^ 0xff;
      await tamper(refs[0]!, flipped);
      expect((await read(refs[0]!)).equals(flipped)).toBe(true);
      await store.deleteLocation(location);
      expect(await store.listParts(location)).toEqual([]);
      expect((await failure(store.openPart(refs[0]!))).details).toMatchObject({ reason: 'PART_MISSING' });
      expect((await failure(store.listParts('../escape'))).code).toBe('VALIDATION_ERROR');
      expect((await failure(store.openPart({ ...refs[0]!, name: '../../x' }))).code).toBe('VALIDATION_ERROR');
    });

    it('detects stored bytes that no longer match their hash, and keeps none of them', async () => {
      const { store, tamper, cacheDir } = await fresh();
      const part = makePart(work, 50_000);
      const [ref] = await upload(store, [part]);
      const flipped = Buffer.from(part.content);
      flipped[25_000] = (flipped[25_000] ?? 0) ^ 0xff;
      await tamper(ref!, flipped);
      const changed = await failure(store.localPath(ref!));
      expect([changed.code, changed.status, changed.details?.reason]).toEqual(['ARTIFACT_CORRUPT', 500, 'HASH_MISMATCH']);
      await tamper(ref!, part.content.subarray(0, 40_000));
      expect((await failure(store.localPath(ref!))).details).toMatchObject({ reason: 'SIZE_MISMATCH' });
      if (cacheDir !== undefined) expect(filesUnder(cacheDir)).toEqual([]);
      // Nothing was poisoned: once the right bytes are back, the part reads again.
      await tamper(ref!, part.content);
      const lease = await store.localPath(ref!);
      expect(readFileSync(lease.path).equals(part.content)).toBe(true);
      lease.release();
    });

    it('with checkBeside, fails damaged bytes in the lease or in its check, and passes good ones', async () => {
      const { store, tamper } = await fresh();
      const part = makePart(work, 50_000);
      const [ref] = await upload(store, [part]);
      // What a reader that leased beside the check learns once the check is over: nothing, or the check's error.
      const besideCheck = async (): Promise<unknown> => {
        try {
          const lease = await store.localPath(ref!, { checkBeside: true });
          try {
            await lease.checked;
          } finally {
            lease.release();
          }
          return null;
        } catch (error) {
          return error;
        }
      };
      // Damaged before the part was ever handed out, so no backend has a checked copy of it yet.
      const flipped = Buffer.from(part.content);
      flipped[25_000] = (flipped[25_000] ?? 0) ^ 0xff;
      await tamper(ref!, flipped);
      expect(await besideCheck()).toMatchObject({ code: 'ARTIFACT_CORRUPT', details: { reason: 'HASH_MISMATCH' } });
      await tamper(ref!, part.content);
      expect(await besideCheck()).toBeNull();
    });

    it('refuses locations, names and hashes it did not make (no path or key escapes the store)', async () => {
      const { store } = await fresh();
      const part = makePart(work, 10);
      const good = partRef(store.newLocation(), part);
      const hash = good.location.slice(3, 67);
      const badLocations = [
        '../../../etc',
        `${hash.slice(0, 2)}/../../${hash}`,
        `${hash.slice(0, 2)}/${hash}/..`,
        `/${good.location}`,
        `${good.location}/`,
        good.location.toUpperCase(),
        `${hash.slice(0, 2)}/${hash}-${'0'.repeat(31)}`,
        `${hash.slice(0, 2) === 'ff' ? 'fe' : 'ff'}/${hash}-${'0'.repeat(32)}`,
        '',
      ];
      const badRefs: PartRef[] = [
        ...badLocations.map((location) => ({ ...good, location })),
        ...['../part-00000.parquet', 'part-00000.parquet/..', 'part-0.parquet', 'part-00000.parquet\0', 'x/part-00000.parquet', ''].map((name) => ({ ...good, name })),
        ...['../../../etc/passwd', part.sha256.toUpperCase(), part.sha256.slice(1)].map((sha256) => ({ ...good, sha256 })),
        { ...good, bytes: -1 },
      ];
      for (const bad of badRefs) {
        expect((await failure(store.putPart(bad, part.path))).code).toBe('VALIDATION_ERROR');
        expect((await failure(store.localPath(bad))).code).toBe('VALIDATION_ERROR');
        expect((await failure(store.presignGet(bad, 60))).code).toBe('VALIDATION_ERROR');
      }
      for (const location of badLocations) expect((await failure(store.deleteLocation(location))).code).toBe('VALIDATION_ERROR');
      // Locations are the store's own: fresh ones are well formed and never repeat.
      const minted = Array.from({ length: 50 }, () => store.newLocation());
      expect(new Set(minted).size).toBe(50);
      for (const location of minted) expect(location).toMatch(/^([0-9a-f]{2})\/\1[0-9a-f]{62}$/);
      expect(await locationsOf(store)).toEqual([]);
    });

    remote(remoteTitle('keeps the cache within its bound, evicting the least recently used part'), async () => {
      const { store, cacheDir, calls } = await fresh({ cacheBytes: 3000 });
      const parts = Array.from({ length: 4 }, () => makePart(work, 1000));
      const [a, b, c, d] = await upload(store, parts);
      const use = async (ref: PartRef | undefined) => (await store.localPath(ref!)).release();
      const cached = () => filesUnder(cacheDir!).map((f) => f.name.replace('.parquet', '')).sort();
      for (const ref of [a, b, c, a, d]) await use(ref);
      expect(calls!('GetObject')).toBe(4);
      expect(cached()).toEqual([a!.sha256, c!.sha256, d!.sha256].sort());
      await use(b);
      expect(cached()).toEqual([a!.sha256, b!.sha256, d!.sha256].sort());
      expect(filesUnder(cacheDir!).reduce((sum, f) => sum + f.size, 0)).toBeLessThanOrEqual(3000);
    });

    remote(remoteTitle('never evicts a part while it is being read, and evicts it once it is not'), async () => {
      const { store, cacheDir } = await fresh({ cacheBytes: 2000 });
      const parts = Array.from({ length: 4 }, () => makePart(work, 1000));
      const [a, b, c, d] = await upload(store, parts);
      const cached = () => filesUnder(cacheDir!).map((f) => f.name.replace('.parquet', '')).sort();
      const held = await store.localPath(a!);
      for (const ref of [b, c, d]) (await store.localPath(ref!)).release();
      // The least recently used part, but being read: the others made way instead.
      expect(cached()).toEqual([a!.sha256, d!.sha256].sort());
      expect(readFileSync(held.path).equals(parts[0]!.content)).toBe(true);
      held.release();
      (await store.localPath(b!)).release();
      expect(cached()).toEqual([b!.sha256, d!.sha256].sort());
    });

    remote(remoteTitle('downloads a part once however many readers miss it at the same time'), async () => {
      const { store, calls } = await fresh();
      const part = makePart(work, 2 * MB);
      const [ref] = await upload(store, [part]);
      const leases = await Promise.all(Array.from({ length: 6 }, () => store.localPath(ref!)));
      expect(calls!('GetObject')).toBe(1);
      expect(new Set(leases.map((l) => l.path)).size).toBe(1);
      expect(sha256Of(readFileSync(leases[0]!.path))).toBe(part.sha256);
      for (const lease of leases) lease.release();
    });

    it.skipIf(!traits.presign)(skipNote(!traits.presign, 'hands out a download link that works, for the time asked, and then expires', `${name} declares presign false`), async () => {
      const { store } = await fresh();
      const part = makePart(work, 4000);
      const [ref] = await upload(store, [part]);
      const url = await store.presignGet(ref!, 120);
      expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('120');
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(part.content)).toBe(true);
      // Signed ten minutes ago: a link for fifteen minutes still works, one for a minute has expired.
      const past = await fresh({ now: () => new Date(Date.now() - 600_000) });
      const [pastRef] = await upload(past.store, [part]);
      expect((await fetch(await past.store.presignGet(pastRef!, 900))).status).toBe(200);
      const stale = await fetch(await past.store.presignGet(pastRef!, 60));
      expect(stale.status).toBe(403);
      expect((await failure(store.presignGet(ref!, 3600))).code).toBe('VALIDATION_ERROR');
    });

    it.skipIf(traits.presign)(skipNote(traits.presign, 'refuses download links it cannot make', `${name} makes them`), async () => {
      const { store } = await fresh();
      expect(store.capabilities.presign).toBe(false);
      const part = makePart(work, 10);
      const [ref] = await upload(store, [part]);
      expect((await failure(store.presignGet(ref!, 60))).code).toBe('UNSUPPORTED_CAPABILITY');
    });

    it.skipIf(!traits.outage)(skipNote(!traits.outage, 'answers STORAGE_UNAVAILABLE while the backend is away, and recovers when it is back', `${name} cannot be taken away by a test`), async () => {
      const { store, outage, cacheDir } = await fresh();
      const [cachedPart, uncachedPart, laterPart] = Array.from({ length: 3 }, () => makePart(work, 5000));
      const [cached, uncached] = await upload(store, [cachedPart!, uncachedPart!]);
      const later = partRef(store.newLocation(), laterPart!);
      (await store.localPath(cached!)).release();
      await store.probe();
      await outage!.stop();
      const errors = [
        await failure(store.probe()),
        await failure(store.localPath(uncached!)),
        await failure(store.putPart(later, laterPart!.path)),
        await failure(store.listLocations({ limit: 5 })),
        await failure(store.deleteLocation(uncached!.location)),
      ];
      for (const error of errors) {
        expect([error.code, error.status, error.details?.retryable]).toEqual(['STORAGE_UNAVAILABLE', 503, true]);
        const said = `${error.message} ${JSON.stringify(error.details)}`;
        for (const secret of outage!.secrets) expect(said).not.toContain(secret);
      }
      // A part already in the cache is still readable; the failed download left nothing behind.
      const lease = await store.localPath(cached!);
      expect(readFileSync(lease.path).equals(cachedPart!.content)).toBe(true);
      lease.release();
      expect(filesUnder(cacheDir!).map((f) => f.name)).toEqual([`${cached!.sha256}.parquet`]);
      await outage!.start();
      await store.probe();
      const back = await store.localPath(uncached!);
      expect(readFileSync(back.path).equals(uncachedPart!.content)).toBe(true);
      back.release();
      await store.putPart(later, laterPart!.path);
      expect((await locationsOf(store)).sort()).toEqual([cached!.location, later.location].sort());
    });
  });
}
