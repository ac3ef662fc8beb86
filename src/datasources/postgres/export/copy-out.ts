/**
 * Receives `COPY … TO STDOUT` on a node-postgres connection in whole socket
 * reads. It is a Submittable (node-postgres's public extension point, the
 * one pg-copy-streams uses): while the COPY runs it reads the connection's
 * socket itself (through its tap when it has one, read-tap.ts), strips the
 * CopyData framing, and hands the rows of each read over as one buffer
 * (the rows of several reads, when the consumer was busy), lent until the
 * consumer asks for the next; at CopyDone or an ErrorResponse it gives the
 * socket, and the bytes from there on, back to node-postgres.
 *
 * Not pg-copy-streams: its copy-to (7.0.0) returns at an ErrorResponse
 * before pushing the CopyData it collected from the same read, and a
 * cancelled statement's last rows arrive in the very packet of its error,
 * so a duration-capped prefix lost them. Framing the messages here also
 * counts the rows: PostgreSQL sends each row of a COPY out as one CopyData
 * message, so the export needs no CSV scan except where it cuts.
 */
import type { Duplex } from 'node:stream';
import type pg from 'pg';
import { readTapOf, type ReadTap } from './read-tap.ts';
import type { SourceChunk } from '../../../worker/export/row-source.ts';

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const ERROR_RESPONSE = 0x45; // 'E'
/** Bytes held for a slow consumer before the socket is paused (and so, through TCP, the server). */
const QUEUE_BYTES = 4 * 1024 * 1024;
/**
 * Reads are gathered into buffers of this size (a longer message gets one
 * its size): about 120 reads share one allocation, and a message cut between
 * two reads is whole once the second arrives, with no join.
 */
const SLAB_BYTES = 1024 * 1024;
/**
 * Slabs kept for reuse once no chunk points into them. A new 1 MiB buffer
 * per MiB received made the collector run a full mark-compact about every
 * 12 MB (39 in a 5M-row export, against 1 with reuse); the queue's bound
 * keeps about five slabs in use, so more than this are never spare.
 */
const SPARE_SLABS = 8;
/**
 * PostgreSQL sends a COPY in 8 kB pieces, and a reader waiting on the socket
 * wakes for each: a 5M-row export took about 57,000 reads, and the system
 * calls and wake-ups of those reads cost more than the framing. After a
 * read shorter than GATHER_BELOW the tapped socket stops reading for
 * GATHER_MS while the kernel gathers what follows: about 3,800 reads
 * instead. Receiving alone, the process's CPU fell 0.95 → 0.40 s and the
 * COPY's wall time 2.85 → 2.38 s, the server's own CPU with it; a whole
 * export's CPU 3.93 → 3.73 s, its reads being longer already while the
 * worker writes parts (bench/runs/2026-12-05-export-cpu.md). A millisecond
 * of 8 kB sends is well inside the socket's receive buffer, so the server
 * is not held up.
 */
const GATHER_MS = 1;
const GATHER_BELOW = 64 * 1024;

type DataListener = (chunk: Buffer) => void;

export class CopyOut implements pg.Submittable, AsyncIterable<SourceChunk> {
  readonly #text: string;
  #socket: Duplex | null = null;
  /** The COPY reads the socket (between submit and the hand-back). */
  #attached = false;
  /** Where the reads come from: the socket's tap, or its 'data' events with node-postgres's reader set aside. */
  #tap: ReadTap | null = null;
  #driverListener: DataListener | null = null;
  /**
   * Reads are appended at `#filled`; messages from `#scanned` on are not
   * framed yet; rows framed so far were moved down to end at `#framed`, and
   * those from `#handed` to there are not yet queued. Rows queued or lent
   * are never written over: a full slab is left to them and another begun,
   * and a slab is reused only once no chunk points into it.
   */
  #slab: Buffer = Buffer.allocUnsafe(0);
  /** Whole slabs no chunk points into, for the next slab. */
  readonly #spare: Buffer[] = [];
  /** Per slab (by its memory), how many chunks in it are queued, or handed over and not yet given back. */
  readonly #lent = new Map<ArrayBufferLike, { slab: Buffer; chunks: number }>();
  /** The chunk the consumer holds: given back when it asks for the next one. */
  #held: SourceChunk | null = null;
  #filled = 0;
  #scanned = 0;
  #framed = 0;
  #handed = 0;
  #queue: SourceChunk[] = [];
  #queued = 0;
  #ended = false;
  #failed = false;
  #error: unknown = null;
  #wake: (() => void) | null = null;
  /** Set while the socket does not read so that the kernel gathers a longer read. */
  #gathering: ReturnType<typeof setTimeout> | null = null;

  constructor(text: string) {
    this.#text = text;
  }

  submit(connection: pg.Connection): void {
    const socket = connection.stream;
    this.#socket = socket;
    const tap = readTapOf(socket);
    if (tap !== undefined) {
      this.#tap = tap;
      tap.take(this.#onRead);
    } else {
      const listeners = socket.listeners('data') as DataListener[];
      if (listeners.length !== 1) throw new Error(`expected one reader of the connection, found ${listeners.length}`);
      this.#driverListener = listeners[0]!;
      socket.removeListener('data', this.#driverListener);
      socket.on('data', this.#onRead);
    }
    this.#attached = true;
    connection.query(this.#text);
  }

  readonly #onRead = (read: Uint8Array): void => {
    this.#append(read);
    // The rows are moved down over the framing, in place: the slab is ours alone.
    const data = this.#slab;
    const filled = this.#filled;
    let used = this.#framed;
    let rows = 0;
    let longest = 0;
    let at = this.#scanned;
    while (at + 5 <= filled) {
      const code = data[at]!;
      const end = at + 1 + data.readUInt32BE(at + 1);
      if (code === ERROR_RESPONSE) return this.#handBack(used, rows, longest, data.subarray(at, filled));
      if (end > filled) break;
      if (code === COPY_DATA) {
        const length = end - at - 5;
        data.copyWithin(used, at + 5, end);
        used += length;
        rows++;
        if (length > longest) longest = length;
      } else if (code === COPY_DONE) {
        return this.#handBack(used, rows, longest, data.subarray(end, filled));
      }
      // CopyOutResponse, and what may come between messages (notices, parameter changes), carry no rows.
      at = end;
    }
    this.#scanned = at;
    this.#push(used, rows, longest);
    if (read.length < GATHER_BELOW) this.#gather();
  };

  /**
   * Only a tapped socket stops reading when paused: a plain one goes on
   * reading into its stream's buffer and emits each read on its own later.
   */
  #gather(): void {
    if (this.#tap === null || this.#gathering !== null) return;
    this.#socket!.pause();
    this.#gathering = setTimeout(() => {
      this.#gathering = null;
      this.#resumeIfDue();
    }, GATHER_MS);
  }

  #stopGathering(): void {
    if (this.#gathering !== null) clearTimeout(this.#gathering);
    this.#gathering = null;
  }

  /** Reads go on unless the consumer is behind or the kernel is gathering. */
  #resumeIfDue(): void {
    if (this.#attached && this.#gathering === null && this.#queued < QUEUE_BYTES && this.#socket!.isPaused()) this.#socket!.resume();
  }

  /** Copies a read in after the bytes not yet framed, in a new slab when it does not fit. */
  #append(read: Uint8Array): void {
    if (this.#slab.length - this.#filled < read.length) {
      const unframed = this.#filled - this.#scanned;
      // A message longer than a slab gets a slab that holds it whole, so its reads are copied once each.
      const message = unframed >= 5 ? 1 + this.#slab.readUInt32BE(this.#scanned + 1) : 0;
      const size = Math.max(SLAB_BYTES, unframed + read.length, message);
      const next = (size === SLAB_BYTES ? this.#spare.pop() : undefined) ?? Buffer.allocUnsafe(size);
      const previous = this.#slab;
      previous.copy(next, 0, this.#scanned, this.#filled);
      this.#slab = next;
      if (!this.#lent.has(previous.buffer)) this.#keepSpare(previous);
      this.#filled = unframed;
      this.#scanned = 0;
      this.#framed = 0;
      this.#handed = 0;
    }
    this.#slab.set(read, this.#filled);
    this.#filled += read.length;
  }

  /** Queues the rows framed so far, then returns the socket and `rest` (what follows the COPY) to node-postgres. */
  #handBack(used: number, rows: number, longest: number, rest: Uint8Array): void {
    this.#push(used, rows, longest);
    const socket = this.#socket!;
    this.#attached = false;
    this.#stopGathering();
    if (this.#tap !== null) {
      this.#tap.release(rest);
    } else {
      socket.removeListener('data', this.#onRead);
      socket.on('data', this.#driverListener!);
      if (rest.length > 0) this.#driverListener!(Buffer.from(rest));
    }
    if (socket.isPaused()) socket.resume();
  }

  /** Queues the rows from `#handed` to `used`, joined to the last chunk queued when they follow it in the slab. */
  #push(used: number, rows: number, longest: number): void {
    this.#framed = used;
    if (rows === 0) return;
    const start = this.#handed;
    this.#handed = used;
    this.#queued += used - start;
    const last = this.#queue.at(-1);
    if (last !== undefined && last.bytes.buffer === this.#slab.buffer && last.bytes.byteOffset + last.bytes.length === this.#slab.byteOffset + start) {
      last.bytes = this.#slab.subarray(last.bytes.byteOffset - this.#slab.byteOffset, used);
      last.rows! += rows;
      last.longestRow = Math.max(last.longestRow, longest);
    } else {
      this.#queue.push({ bytes: this.#slab.subarray(start, used), rows, longestRow: longest });
      const lent = this.#lent.get(this.#slab.buffer);
      if (lent !== undefined) lent.chunks++;
      else this.#lent.set(this.#slab.buffer, { slab: this.#slab, chunks: 1 });
    }
    if (this.#queued >= QUEUE_BYTES) this.#socket?.pause();
    this.#notify();
  }

  // node-postgres calls these on the active query once the socket is its own again.
  handleError(error: unknown): void {
    this.#stopGathering();
    this.#failed = true;
    this.#error = error;
    this.#notify();
  }

  handleReadyForQuery(): void {
    this.#ended = true;
    this.#notify();
  }

  handleCommandComplete(): void {}

  /** Chunks are lent: a chunk's bytes may be written over once the next chunk is asked for (row-source.ts). */
  async *[Symbol.asyncIterator](): AsyncGenerator<SourceChunk> {
    for (;;) {
      this.#giveBack();
      const chunk = this.#queue.shift();
      if (chunk !== undefined) {
        this.#queued -= chunk.bytes.length;
        // Only the COPY pauses the socket, and handing it back resumes it.
        this.#resumeIfDue();
        this.#held = chunk;
        yield chunk;
        continue;
      }
      if (this.#failed) throw this.#error;
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** The consumer is done with the chunk it held; its slab is spare once nothing else points into it. */
  #giveBack(): void {
    const chunk = this.#held;
    if (chunk === null) return;
    this.#held = null;
    const lent = this.#lent.get(chunk.bytes.buffer)!;
    if (--lent.chunks > 0) return;
    this.#lent.delete(chunk.bytes.buffer);
    if (lent.slab !== this.#slab) this.#keepSpare(lent.slab);
  }

  #keepSpare(slab: Buffer): void {
    if (slab.length === SLAB_BYTES && this.#spare.length < SPARE_SLABS) this.#spare.push(slab);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
