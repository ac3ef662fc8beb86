/**
 * Frames out of a byte stream, one at a time and only when asked: the
 * stream is pulled no faster than frames are taken, so a slow consumer
 * stops the statement process through the pipe (backpressure), and memory
 * holds at most one frame and the stream's own buffer.
 */
import { Buffer } from 'node:buffer';
import { decodeFrame, frameLength, HEADER_BYTES, type Frame } from './statement-protocol.ts';

export class FrameReader {
  readonly #chunks: AsyncIterator<Buffer>;
  #held: Buffer[] = [];
  #heldBytes = 0;

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
    const all = this.#held.length === 1 ? this.#held[0]! : Buffer.concat(this.#held);
    const rest = all.subarray(bytes);
    this.#held = rest.length > 0 ? [rest] : [];
    this.#heldBytes = rest.length;
    return all.subarray(0, bytes);
  }
}
