/**
 * Frames out of a byte stream, one at a time and only when asked: the
 * stream is pulled no faster than frames are taken, so a slow consumer
 * stops the statement process through the pipe (backpressure), and memory
 * holds at most one frame and the stream's own buffer.
 *
 * A frame that came in several reads is copied into one buffer, reused for
 * the next such frame: a row source's chunk is lent until the next is asked
 * for (row-source.ts), and a fresh megabyte per frame cost the export about
 * as much as the copy itself (page faults, collections).
 */
import { Buffer } from 'node:buffer';
import { decodeFrame, frameLength, HEADER_BYTES, type Frame } from './statement-protocol.ts';

export class FrameReader {
  readonly #chunks: AsyncIterator<Buffer>;
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** Where a frame split across reads is put together; valid until the next frame is asked for. */
  #assembly: Buffer = Buffer.alloc(0);

  constructor(stream: AsyncIterable<Buffer>) {
    this.#chunks = stream[Symbol.asyncIterator]();
  }

  /** The next frame; null when the stream ended (the process exited) between frames or within one. */
  async next(): Promise<Frame | null> {
    if (!(await this.#fill(HEADER_BYTES))) return null;
    const length = frameLength(this.#peek(HEADER_BYTES));
    if (!(await this.#fill(length))) return null;
    return decodeFrame(this.#take(length));
  }

  async #fill(bytes: number): Promise<boolean> {
    while (this.#heldBytes < bytes) {
      const step = await this.#chunks.next();
      if (step.done === true) return false;
      this.#held.push(step.value);
      this.#heldBytes += step.value.length;
    }
    return true;
  }

  #peek(bytes: number): Buffer {
    if (this.#held[0]!.length < bytes) this.#held = [Buffer.concat(this.#held)];
    return this.#held[0]!.subarray(0, bytes);
  }

  #take(bytes: number): Buffer {
    const first = this.#held[0]!;
    if (first.length >= bytes) {
      const rest = first.subarray(bytes);
      this.#held = rest.length > 0 ? [rest, ...this.#held.slice(1)] : this.#held.slice(1);
      this.#heldBytes -= bytes;
      return first.subarray(0, bytes);
    }
    if (this.#assembly.length < bytes) this.#assembly = Buffer.allocUnsafe(Math.max(bytes, this.#assembly.length * 2));
    const frame = this.#assembly.subarray(0, bytes);
    let at = 0;
    let used = 0;
    while (at < bytes) {
      const piece = this.#held[used]!;
      const taken = Math.min(piece.length, bytes - at);
      frame.set(taken === piece.length ? piece : piece.subarray(0, taken), at);
      at += taken;
      if (taken < piece.length) {
        this.#held[used] = piece.subarray(taken);
        break;
      }
      used++;
    }
    this.#held = this.#held.slice(used);
    this.#heldBytes -= bytes;
    return frame;
  }
}
