/**
 * The bookkeeping of the part cache, without any I/O: which parts it holds,
 * their sizes, who is reading each (pins), and in what order they were last
 * used. A Map keeps insertion order, so re-inserting on use makes its first
 * entries the least recently used. Eviction takes unpinned entries from the
 * front until the total fits; pinned ones are skipped, so the bound can be
 * exceeded only by parts that are being read at that moment, and they are
 * evicted as soon as their last reader lets go.
 */
/** A held part; readers keep the entry they pinned, so a release never touches a later copy of the same part. */
export interface Entry {
  readonly sha256: string;
  readonly bytes: number;
  pins: number;
}

export class CacheIndex {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  #total = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get totalBytes(): number {
    return this.#total;
  }

  get pinned(): number {
    let count = 0;
    for (const entry of this.#entries.values()) if (entry.pins > 0) count += 1;
    return count;
  }

  /** Addresses from least to most recently used. */
  order(): string[] {
    return [...this.#entries.keys()];
  }

  bytesOf(sha256: string): number | undefined {
    return this.#entries.get(sha256)?.bytes;
  }

  /** Records a part as the most recently used, read by `pins` readers; returns it and the addresses to evict. */
  add(sha256: string, bytes: number, pins: number): { entry: Entry; evicted: string[] } {
    this.#forget(sha256);
    const entry: Entry = { sha256, bytes, pins };
    this.#entries.set(sha256, entry);
    this.#total += bytes;
    return { entry, evicted: this.#evict() };
  }

  /** One more reader of a held part, which becomes the most recently used; undefined when it is not held. */
  pin(sha256: string): Entry | undefined {
    const entry = this.#entries.get(sha256);
    if (entry === undefined) return undefined;
    this.#entries.delete(sha256);
    this.#entries.set(sha256, entry);
    entry.pins += 1;
    return entry;
  }

  /** One reader fewer; returns the addresses to evict now that the entry may have become evictable. */
  unpin(entry: Entry): string[] {
    if (this.#entries.get(entry.sha256) !== entry || entry.pins === 0) return [];
    entry.pins -= 1;
    return entry.pins === 0 ? this.#evict() : [];
  }

  /**
   * Drops an entry whatever its readers (its file turned out to be gone),
   * unless a newer copy of the part replaced it already; their later
   * unpins are no-ops. False when it was not the current entry.
   */
  drop(entry: Entry): boolean {
    return this.#entries.get(entry.sha256) === entry && this.#forget(entry.sha256);
  }

  #forget(sha256: string): boolean {
    const entry = this.#entries.get(sha256);
    if (entry === undefined) return false;
    this.#entries.delete(sha256);
    this.#total -= entry.bytes;
    return true;
  }

  #evict(): string[] {
    const evicted: string[] = [];
    for (const [sha256, entry] of this.#entries) {
      if (this.#total <= this.#maxBytes) break;
      if (entry.pins > 0) continue;
      this.#entries.delete(sha256);
      this.#total -= entry.bytes;
      evicted.push(sha256);
    }
    return evicted;
  }
}
