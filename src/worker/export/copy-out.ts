/**
 * Receives `COPY … TO STDOUT` on a node-postgres connection in whole socket
 * reads. It is a Submittable (node-postgres's public extension point, the
 * one pg-copy-streams uses): while the COPY runs it reads the connection's
 * socket itself, strips the CopyData framing, and hands the rows of each
 * read over as one buffer; at CopyDone or an ErrorResponse it gives the
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
import type { SourceChunk } from './row-source.ts';

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const ERROR_RESPONSE = 0x45; // 'E'
/** Bytes held for a slow consumer before the socket is paused (and so, through TCP, the server). */
const QUEUE_BYTES = 4 * 1024 * 1024;

type DataListener = (chunk: Buffer) => void;

export class CopyOut implements pg.Submittable, AsyncIterable<SourceChunk> {
  readonly #text: string;
  #socket: Duplex | null = null;
  /** The COPY reads the socket (between submit and the hand-back). */
  #attached = false;
  /** node-postgres's own reader of the socket, set aside while the COPY runs. */
  #driverListener: DataListener | null = null;
  /** Reads holding the start of a message that has not fully arrived, and the bytes it needs to be whole. */
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #needed = 0;
  #queue: SourceChunk[] = [];
  #queued = 0;
  #ended = false;
  #failed = false;
  #error: unknown = null;
  #wake: (() => void) | null = null;

  constructor(text: string) {
    this.#text = text;
  }

  submit(connection: pg.Connection): void {
    const socket = connection.stream;
    const listeners = socket.listeners('data') as DataListener[];
    if (listeners.length !== 1) throw new Error(`expected one reader of the connection, found ${listeners.length}`);
    this.#socket = socket;
    this.#driverListener = listeners[0]!;
    socket.removeListener('data', this.#driverListener);
    socket.on('data', this.#onData);
    this.#attached = true;
    connection.query(this.#text);
  }

  readonly #onData = (chunk: Buffer): void => {
    let data = chunk;
    if (this.#partial.length > 0) {
      // A long row spans many reads: they are joined once, when the whole message is there.
      this.#partial.push(chunk);
      this.#partialBytes += chunk.length;
      if (this.#partialBytes < this.#needed) return;
      data = Buffer.concat(this.#partial, this.#partialBytes);
      this.#partial = [];
    }
    // The rows are moved down over the framing, in place: the read is ours alone.
    let used = 0;
    let rows = 0;
    let longest = 0;
    let at = 0;
    while (at + 5 <= data.length) {
      const code = data[at]!;
      const end = at + 1 + data.readUInt32BE(at + 1);
      if (code === ERROR_RESPONSE) return this.#handBack(data, used, rows, longest, data.subarray(at));
      if (end > data.length) break;
      if (code === COPY_DATA) {
        const length = end - at - 5;
        data.copyWithin(used, at + 5, end);
        used += length;
        rows++;
        if (length > longest) longest = length;
      } else if (code === COPY_DONE) {
        return this.#handBack(data, used, rows, longest, data.subarray(end));
      }
      // CopyOutResponse, and what may come between messages (notices, parameter changes), carry no rows.
      at = end;
    }
    if (at < data.length) {
      const rest = data.subarray(at);
      this.#partial = [rest];
      this.#partialBytes = rest.length;
      this.#needed = rest.length >= 5 ? 1 + rest.readUInt32BE(1) : 5;
    }
    this.#push(data, used, rows, longest);
  };

  /** Queues the rows read so far, then returns the socket and the rest of the read to node-postgres. */
  #handBack(out: Buffer, used: number, rows: number, longest: number, rest: Buffer): void {
    this.#push(out, used, rows, longest);
    const socket = this.#socket!;
    this.#attached = false;
    socket.removeListener('data', this.#onData);
    socket.on('data', this.#driverListener!);
    if (socket.isPaused()) socket.resume();
    if (rest.length > 0) this.#driverListener!(rest);
  }

  #push(out: Buffer, used: number, rows: number, longest: number): void {
    if (rows === 0) return;
    this.#queue.push({ bytes: out.subarray(0, used), rows, longestRow: longest });
    this.#queued += used;
    if (this.#queued >= QUEUE_BYTES) this.#socket?.pause();
    this.#notify();
  }

  // node-postgres calls these on the active query once the socket is its own again.
  handleError(error: unknown): void {
    this.#failed = true;
    this.#error = error;
    this.#notify();
  }

  handleReadyForQuery(): void {
    this.#ended = true;
    this.#notify();
  }

  handleCommandComplete(): void {}

  async *[Symbol.asyncIterator](): AsyncGenerator<SourceChunk> {
    for (;;) {
      const chunk = this.#queue.shift();
      if (chunk !== undefined) {
        this.#queued -= chunk.bytes.length;
        // Only the COPY pauses the socket, and handing it back resumes it.
        if (this.#attached && this.#queued < QUEUE_BYTES && this.#socket!.isPaused()) this.#socket!.resume();
        yield chunk;
        continue;
      }
      if (this.#failed) throw this.#error;
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
