/**
 * Which stored parts of a local directory store this process has hashed,
 * and a pass after start that hashes every stored part once, in the
 * background, most recently read first, so a read after a restart rarely
 * waits for a hash. A read that reaches a part not hashed yet hashes that
 * part only (sharing a hash already running). A part's hash is only
 * trusted while its size and modification time stay those seen before it
 * was hashed; any change and it is hashed again. A part this process put
 * into the store was hashed there (place-file.ts): that check counts as its
 * hash, so the first read of a new artifact hashes nothing again. The pass
 * needs no catalog: it records the digest it found, and a read compares it
 * with the one the catalog holds, so tampered bytes are ARTIFACT_CORRUPT all
 * the same.
 *
 * The pass stays behind the reads: it waits while reads keep asking for
 * parts (until none has for READS_QUIET_MS), because on 2 cores a hash
 * running beside a read takes the core the read's DuckDB would use (a
 * restart's first sorted read took 2.5-2.9× a warm one with the pass
 * hashing beside it). A read still hashes what it needs itself, beside
 * its own DuckDB read of the same parts (byte-store.ts, LeaseOptions).
 *
 * Most recently read: the locations this process first read are kept,
 * newest first, in one small file in the store's root (at most
 * RECENT_LOCATIONS names, rewritten by rename at most every few seconds);
 * the next process's pass takes them first, then the other parts newest
 * written first. This module's job is the local disk.
 */
import { statSync } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { digestFile } from '../../runtime/digest-file.ts';
import { corrupt } from './content-check.ts';
import { isLocation, partNotFound } from './part-address.ts';
import type { FileStamp } from './place-file.ts';

/** How long no read must have asked for a part before the pass hashes the next one. */
export const READS_QUIET_MS = 300;
/** How many recently read locations are remembered across restarts (about 100 bytes each). */
export const RECENT_LOCATIONS = 2000;
/** The file that remembers them, in the store's root. */
export const RECENT_FILE = 'recently-read.json';
const TWO_HEX = /^[0-9a-f]{2}$/;
const PART_NAME = /^part-\d{5}\.parquet$/;

interface Digest {
  stamp: string;
  sha256: string;
  bytes: number;
}

const stampText = (info: FileStamp) => `${info.size}:${info.mtimeMs}`;

async function stampOf(path: string): Promise<{ stamp: string; size: number; mtimeMs: number } | undefined> {
  try {
    const info = await stat(path);
    return { stamp: stampText(info), size: info.size, mtimeMs: info.mtimeMs };
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * stampOf without leaving the thread, for the reads: every read asks it,
 * and an asynchronous stat queues for a thread of the pool that DuckDB's
 * statements keep busy under load, for what is a lookup of a few
 * microseconds on a local disk. Measured, distinct pages at 50 connections:
 * 249-266 pages/s against 209-234, 10-15 % less CPU a page
 * (bench/runs/2026-12-02-first-reads.md).
 */
function stampNow(path: string): { stamp: string; size: number; mtimeMs: number } | undefined {
  const info = statSync(path, { throwIfNoEntry: false });
  return info === undefined ? undefined : { stamp: stampText(info), size: info.size, mtimeMs: info.mtimeMs };
}

async function namesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

export class PartVerifier {
  readonly #objectsDir: string;
  readonly #recentFile: string;
  /** What each part key's bytes hashed to, at the size and time seen before hashing. */
  readonly #digests = new Map<string, Digest>();
  readonly #hashing = new Map<string, Promise<Digest | undefined>>();
  /** Locations read in this process, oldest first (Map order). */
  readonly #recent = new Map<string, true>();
  readonly #recentWriteMs: number;
  #recentTimer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #pass: Promise<void> | undefined;
  #hashes = 0;
  readonly #readsQuietMs: number;
  /** When a read last asked for a part (performance.now()). */
  #lastRead = Number.NEGATIVE_INFINITY;

  /**
   * recentWriteMs: how long the list of recent reads waits for more before it is written (2 s);
   * readsQuietMs: how long the pass waits after a read asked for a part (READS_QUIET_MS).
   */
  constructor(root: string, objectsDir: string, { recentWriteMs = 2000, readsQuietMs = READS_QUIET_MS }: { recentWriteMs?: number; readsQuietMs?: number } = {}) {
    this.#objectsDir = objectsDir;
    this.#recentFile = join(root, RECENT_FILE);
    this.#recentWriteMs = recentWriteMs;
    this.#readsQuietMs = readsQuietMs;
  }

  /** How many times this process has hashed a whole part, for tests and operators. */
  get hashes(): number {
    return this.#hashes;
  }

  /** Fails unless the file holds exactly the part's bytes; hashes it only when this process has not at its current size and time. */
  async verify(key: string, location: string, path: string, sha256: string, bytes: number): Promise<void> {
    this.#lastRead = performance.now();
    for (;;) {
      const now = stampNow(path);
      if (now === undefined) throw partNotFound();
      if (now.size !== bytes) throw corrupt(sha256, 'SIZE_MISMATCH');
      const digest = this.#digests.get(key)?.stamp === now.stamp ? this.#digests.get(key) : await this.#hash(key, path);
      if (digest === undefined) throw partNotFound();
      // Changed while it was hashed: what was hashed is not what is there now.
      if (digest.stamp !== now.stamp) continue;
      if (digest.bytes !== bytes) throw corrupt(sha256, 'SIZE_MISMATCH');
      if (digest.sha256 !== sha256) throw corrupt(sha256, 'HASH_MISMATCH');
      this.#used(location);
      return;
    }
  }

  /** The part's bytes were checked against `sha256` when they had this stamp (a put, place-file.ts): trusted until it changes. */
  checked(key: string, stamp: FileStamp, sha256: string, bytes: number): void {
    this.#digests.set(key, { stamp: stampText(stamp), sha256, bytes });
  }

  /** Forgets what was hashed of these keys (an upload deleted). */
  forget(match: (key: string) => boolean): void {
    for (const key of this.#digests.keys()) if (match(key)) this.#digests.delete(key);
  }

  /** Starts the pass over every stored part, once; it stops at stop(). */
  start(): Promise<void> {
    this.#pass ??= this.#run().catch(() => undefined);
    return this.#pass;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#recentTimer !== undefined) clearTimeout(this.#recentTimer);
  }

  /** Hashes the file at its current stamp, sharing a hash of the same key already running. */
  #hash(key: string, path: string): Promise<Digest | undefined> {
    let running = this.#hashing.get(key);
    if (running === undefined) {
      running = (async () => {
        // Taken as verify takes its own, so the two compare equal when nothing changed.
        const before = stampNow(path);
        if (before === undefined) return undefined;
        const found = await digestFile(path);
        this.#hashes += 1;
        const digest = { stamp: before.stamp, sha256: found.sha256, bytes: found.bytes };
        this.#digests.set(key, digest);
        return digest;
      })().finally(() => this.#hashing.delete(key));
      this.#hashing.set(key, running);
    }
    return running;
  }

  #used(location: string): void {
    if (this.#recent.has(location)) return;
    this.#recent.set(location, true);
    for (const oldest of this.#recent.keys()) {
      if (this.#recent.size <= RECENT_LOCATIONS) break;
      this.#recent.delete(oldest);
    }
    if (this.#recentTimer === undefined) {
      this.#recentTimer = setTimeout(() => void this.flushRecent(), this.#recentWriteMs);
      // Never keeps a process alive: only the order of the next start's pass depends on it.
      (this.#recentTimer as { unref?: () => void }).unref?.();
    }
  }

  /** Writes the list of recent reads now (it is written a little after a read otherwise). */
  async flushRecent(): Promise<void> {
    if (this.#recentTimer !== undefined) clearTimeout(this.#recentTimer);
    this.#recentTimer = undefined;
    if (this.#stopped) return;
    // This process's reads first (newest first), then what the last process had read, up to the bound.
    const names = [...[...this.#recent.keys()].reverse(), ...(await this.#readRecent())];
    const unique = [...new Set(names)].slice(0, RECENT_LOCATIONS);
    const temporary = `${this.#recentFile}.${process.pid}.tmp`;
    // Best effort: only the order of the next start's pass depends on it.
    await writeFile(temporary, JSON.stringify(unique))
      .then(() => rename(temporary, this.#recentFile))
      .catch(() => undefined);
  }

  async #readRecent(): Promise<string[]> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.#recentFile, 'utf8'));
      return Array.isArray(parsed) ? parsed.filter((l): l is string => typeof l === 'string' && isLocation(l)).slice(0, RECENT_LOCATIONS) : [];
    } catch {
      return [];
    }
  }

  /** The order of the pass: every stored part, the locations read lately first, in that order, then the others newest written first. */
  async plan(): Promise<{ key: string; path: string }[]> {
    const recent = await this.#readRecent();
    const rank = new Map(recent.map((location, i) => [location, i]));
    const found: { key: string; path: string; location: string; mtimeMs: number }[] = [];
    for (const fanOut of await namesIn(this.#objectsDir)) {
      if (!TWO_HEX.test(fanOut)) continue;
      for (const name of await namesIn(join(this.#objectsDir, fanOut))) {
        const location = `${fanOut}/${name}`;
        if (!isLocation(location)) continue;
        for (const part of await namesIn(join(this.#objectsDir, location))) {
          if (!PART_NAME.test(part)) continue;
          const path = join(this.#objectsDir, location, part);
          const info = await stampOf(path).catch(() => undefined);
          if (info !== undefined) found.push({ key: `${location}/${part}`, path, location, mtimeMs: info.mtimeMs });
        }
        if (this.#stopped) return [];
      }
    }
    const order = (location: string) => rank.get(location) ?? Number.POSITIVE_INFINITY;
    found.sort((a, b) => order(a.location) - order(b.location) || b.mtimeMs - a.mtimeMs || a.key.localeCompare(b.key));
    return found.map(({ key, path }) => ({ key, path }));
  }

  async #run(): Promise<void> {
    for (const { key, path } of await this.plan()) {
      if (this.#stopped) return;
      await this.#readsQuiet();
      if (this.#stopped) return;
      const now = await stampOf(path).catch(() => undefined);
      if (now === undefined || this.#digests.get(key)?.stamp === now.stamp) continue;
      // One part at a time, behind the reads: a read that needs this part shares the hash.
      await this.#hash(key, path).catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Resolves once no read has asked for a part for readsQuietMs (at once when none has lately). */
  async #readsQuiet(): Promise<void> {
    for (;;) {
      const wait = this.#lastRead + this.#readsQuietMs - performance.now();
      if (wait <= 0 || this.#stopped) return;
      // Never keeps a process alive: the pass is background work.
      await new Promise((resolve) => (setTimeout(resolve, wait) as { unref?: () => void }).unref?.());
    }
  }
}
