/**
 * Recently served pages and aggregates, by artifact and request. An
 * artifact's bytes never change once committed, so a stored answer stays
 * right for as long as the artifact may be read; whether it may be read is
 * not the cache's business: every read is authorized against the catalog
 * before the cache is asked, so a deleted or expired artifact, or another
 * caller's, never reaches it. Bounded by the size of the rows it holds,
 * least recently used first out. Concurrent requests for the same answer
 * share one read.
 */

/** What a page or an aggregate leaves in the cache. */
export interface CachedAnswer<T> {
  value: T;
  /** About what the entry holds in memory: its values, strings at two bytes a character (page-reads.ts). */
  bytes: number;
}

interface Entry<T> {
  value: T;
  bytes: number;
}

/** Bound on the rows held, across all artifacts. */
export const PAGE_CACHE_BYTES = 32 * 1024 * 1024;
/** Keys, bookkeeping: counted on top of the rows so many small entries stay bounded too. */
const ENTRY_OVERHEAD = 256;

export class PageCache<T> {
  readonly #maxBytes: number;
  /** Map order is recency: the first key is the least recently used. */
  readonly #entries = new Map<string, Entry<T>>();
  readonly #pending = new Map<string, Promise<CachedAnswer<T>>>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  constructor(maxBytes = PAGE_CACHE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes held now (rows and bookkeeping). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Answers served without a read (kept, or shared with a read in flight), and reads, since start. */
  get counts(): { hits: number; misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /** The stored answer for `key`, or `load`'s (stored if it fits); one load per key at a time. */
  async get(key: string, load: () => Promise<CachedAnswer<T>>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#hits++;
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.value;
    }
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      this.#misses++;
      pending = load().finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
      const answer = await pending;
      this.#store(key, answer);
      return answer.value;
    }
    this.#hits++;
    return (await pending).value;
  }

  /** Whether an answer is kept under `key` (an answer too large for the cache is served once and not kept). */
  holds(key: string): boolean {
    return this.#entries.has(key);
  }

  #store(key: string, answer: CachedAnswer<T>): void {
    const bytes = answer.bytes + key.length + ENTRY_OVERHEAD;
    // One answer may not take more than an eighth of the cache: a few large ones would flush everything else.
    if (bytes > this.#maxBytes / 8 || this.#entries.has(key)) return;
    this.#entries.set(key, { value: answer.value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }
}
