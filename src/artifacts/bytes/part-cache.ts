/**
 * The bounded local cache of parts whose home is remote, in one directory of
 * the data dir (`<dir>/<sha256>.parquet`, downloads in `<dir>/tmp`). A miss
 * streams the part through its hash check into a temporary file and renames
 * it into place, so the directory only ever holds verified parts; concurrent
 * misses of one part share one download. Readers hold leases (CacheIndex
 * pins): a part is evicted, least recently used first, only when nobody
 * reads it. After a restart the directory is rescanned on first use, not at
 * start, and its cost grows with the cache's bound, never with the bucket;
 * files' modification times (refreshed on each hit) restore the LRU order.
 * This module's job is the local disk.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import type { PartLease } from './byte-store.ts';
import { CacheIndex, type Entry } from './cache-index.ts';
import { writeChecked } from './content-check.ts';
import { checkAddress, checkSize } from './part-address.ts';

export interface PartCacheOptions {
  dir: string;
  maxBytes: number;
}

/** Opens the remote bytes of a part; called only on a miss. */
export type PartSource = () => Promise<Readable | AsyncIterable<Uint8Array>>;

const CACHED = /^([0-9a-f]{64})\.parquet$/;

export class PartCache {
  readonly #dir: string;
  readonly #tmp: string;
  readonly #index: CacheIndex;
  readonly #inflight = new Map<string, { waiters: number; done: Promise<Entry> }>();
  #ready: Promise<void> | undefined;

  constructor({ dir, maxBytes }: PartCacheOptions) {
    this.#dir = dir;
    this.#tmp = join(dir, 'tmp');
    this.#index = new CacheIndex(maxBytes);
  }

  /** What the cache holds now (bytes, and parts being read), for tests and operators. */
  usage(): { bytes: number; pinned: number; order: string[] } {
    return { bytes: this.#index.totalBytes, pinned: this.#index.pinned, order: this.#index.order() };
  }

  async acquire(sha256: string, bytes: number, source: PartSource): Promise<PartLease> {
    const path = this.#fileOf(checkAddress(sha256));
    checkSize(bytes);
    await this.#scanned();
    for (;;) {
      const held = this.#index.pin(sha256);
      if (held === undefined) break;
      const lease = this.#lease(path, held);
      const info = await stat(path).catch(() => undefined);
      if (held.bytes === bytes && info?.size === bytes) {
        // Best effort: only the order after a restart depends on it.
        void utimes(path, new Date(), new Date()).catch(() => undefined);
        return lease;
      }
      // Removed by hand, or cut short by a power failure after its rename: fetch it again (the check decides).
      lease.release();
      if (this.#index.drop(held)) rmSync(path, { force: true });
    }
    let flight = this.#inflight.get(sha256);
    if (flight === undefined) {
      const started = { waiters: 0 } as { waiters: number; done: Promise<Entry> };
      // Registered before the download starts, so a failure it meets at once still removes it.
      this.#inflight.set(sha256, started);
      started.done = this.#download(sha256, bytes, source, () => started.waiters);
      flight = started;
    }
    flight.waiters += 1;
    return this.#lease(path, await flight.done);
  }

  #fileOf(sha256: string): string {
    return join(this.#dir, `${sha256}.parquet`);
  }

  #lease(path: string, entry: Entry): PartLease {
    let released = false;
    return {
      path,
      release: () => {
        if (released) return;
        released = true;
        this.#remove(this.#index.unpin(entry));
      },
    };
  }

  #remove(evicted: string[]): void {
    // Synchronously, so a new download of the same part can never be renamed into place before this removal runs.
    for (const sha256 of evicted) rmSync(this.#fileOf(sha256), { force: true });
  }

  async #download(sha256: string, bytes: number, source: PartSource, waiters: () => number): Promise<Entry> {
    const temporary = join(this.#tmp, `${sha256}.${randomUUID()}`);
    try {
      await writeChecked(await source(), temporary, sha256, bytes);
      await rename(temporary, this.#fileOf(sha256));
    } catch (error) {
      this.#inflight.delete(sha256);
      await rm(temporary, { force: true });
      throw error;
    }
    // In one synchronous step with leaving #inflight: every caller that joined gets its pin, later ones find the entry.
    this.#inflight.delete(sha256);
    const { entry, evicted } = this.#index.add(sha256, bytes, waiters());
    this.#remove(evicted);
    return entry;
  }

  #scanned(): Promise<void> {
    this.#ready ??= this.#scan().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #scan(): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    // Downloads a crash cut short: nothing in this process has started one yet.
    await rm(this.#tmp, { recursive: true, force: true });
    await mkdir(this.#tmp, { recursive: true });
    const found: { sha256: string; size: number; mtimeMs: number }[] = [];
    for (const name of await readdir(this.#dir)) {
      const sha256 = CACHED.exec(name)?.[1];
      const info = sha256 === undefined ? undefined : await stat(join(this.#dir, name)).catch(() => undefined);
      if (sha256 !== undefined && info !== undefined) found.push({ sha256, size: info.size, mtimeMs: info.mtimeMs });
    }
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    // The bound may have shrunk since the last run: adding in LRU order evicts the oldest first.
    for (const part of found) this.#remove(this.#index.add(part.sha256, part.size, 0).evicted);
  }
}
