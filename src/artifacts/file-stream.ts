/**
 * Serves a file as a web ReadableStream with back-pressure (the file is read
 * only as fast as the client takes it), optionally checking its SHA-256 as it
 * goes, and removing a temporary file however the stream ends.
 */
import { createHash } from 'node:crypto';
import { createReadStream, rmSync, type ReadStream } from 'node:fs';
import { SluiceError } from '../errors.ts';

export interface FileStreamOptions {
  /** Prepended bytes (a CSV header). */
  prefix?: Uint8Array;
  /** Expected SHA-256 (hex); a mismatch errors the stream instead of ending it cleanly. */
  sha256?: string;
  /** Told of a mismatch, for the operator (the client only sees the stream fail). */
  onCorrupt?: () => void;
  /** Remove the file when the stream ends, fails or is cancelled. */
  temporary?: boolean;
  /** Called once when the stream ends, fails or is cancelled (a lease on the file is released there). */
  onClose?: () => void;
}

export function fileStream(path: string, options: FileStreamOptions = {}): ReadableStream<Uint8Array> {
  // Opened at the first read, not here: a stream cancelled before that (a client gone at once, a HEAD answer)
  // would otherwise leave an open in flight that fails on the removed file with nothing listening, and an
  // error nobody listens for ends the process.
  let source: ReadStream | null = null;
  let iterator: AsyncIterator<unknown> | null = null;
  const hash = options.sha256 !== undefined ? createHash('sha256') : null;
  let prefixSent = options.prefix === undefined;
  let closed = false;
  const cleanup = () => {
    source?.destroy();
    if (options.temporary) rmSync(path, { force: true });
    if (!closed) {
      closed = true;
      options.onClose?.();
    }
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!prefixSent) {
          prefixSent = true;
          controller.enqueue(options.prefix!);
          return;
        }
        try {
          if (iterator === null) {
            source = createReadStream(path, { highWaterMark: 256 * 1024 });
            // The iterator listens for the stream's errors from its first next(), called at once.
            iterator = source[Symbol.asyncIterator]();
          }
          const next = await iterator.next();
          if (next.done) {
            cleanup();
            if (hash !== null && hash.digest('hex') !== options.sha256) {
              options.onCorrupt?.();
              controller.error(new SluiceError('ARTIFACT_CORRUPT', 'The stored artifact failed its integrity check.'));
              return;
            }
            controller.close();
            return;
          }
          const chunk = next.value as Buffer;
          hash?.update(chunk);
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        } catch (error) {
          cleanup();
          controller.error(error);
        }
      },
      cancel() {
        cleanup();
      },
    },
    { highWaterMark: 1 },
  );
}
