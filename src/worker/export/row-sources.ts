/**
 * Where an export's bytes come from. Both sources yield PostgreSQL CSV with
 * every non-NULL value quoted, so NULL (an unquoted empty field) and the
 * empty string ("") never meet. The COPY source lets PostgreSQL write the
 * CSV itself, the fast path; the cursor source serves statements COPY cannot
 * run (bound parameters, EXPLAIN) and fetches in batches, never row by row.
 */
import { Readable } from 'node:stream';
import type { PendingQuery, TransactionSql } from 'postgres';

/** Bytes of whole CSV records, how many records they hold when the source knows, and a bound on the longest. */
export interface SourceChunk {
  bytes: Uint8Array;
  rows: number | null;
  /** No record in `bytes` is longer than this (bytes, its newline included); the CSV reader must be told. */
  longestRow: number;
}

export interface RowSource extends AsyncIterable<SourceChunk> {
  /** Asks the server to stop the statement; the iteration then ends with an error. */
  cancel(): void;
}

const CURSOR_BATCH = 5_000;
/** Bytes the COPY source holds for a slow consumer before it pauses the stream (and so the socket). */
const COPY_QUEUE_BYTES = 4 * 1024 * 1024;

/**
 * The COPY stream is not awaited here. PostgreSQL buffers its CopyOutResponse
 * with the first rows (8 kB), so a slow statement sends nothing for a long
 * time; awaiting the stream would leave the export unable to be cancelled or
 * timed out until then. The export loop iterates at once, and cancel() works
 * from the start.
 */
export function openCopySource(tx: TransactionSql, selectSql: string): RowSource {
  const query = tx.unsafe(`COPY (${selectSql}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)`);
  const queue = new CopyQueue();
  // postgres.js creates the stream and, when the error arrives in the same
  // packet (an early runtime error, a cancel before 8 kB were sent), destroys
  // it before any promise continuation runs: its 'error' would go unheard and
  // kill the worker, and the rows sent before the error would be lost. Its
  // resolve() is the one place that sees the stream the moment it exists.
  const pending = query as unknown as { resolve: (value: unknown) => void };
  const resolve = pending.resolve;
  pending.resolve = (value) => {
    if (value instanceof Readable) queue.attach(value);
    resolve(value);
  };
  query.readable().catch((error: unknown) => queue.fail(error));
  return {
    cancel: () => cancelOnceSent(query),
    [Symbol.asyncIterator]: () => queue.chunks(),
  };
}

/**
 * postgres.js "cancels" a query it has not sent yet by dropping it, which
 * inside a transaction stalls the connection: the ROLLBACK that follows is
 * never sent and the export hangs. A query handed to postgres.js is sent
 * within the microtasks that follow, so the cancel waits for them to finish;
 * the server then stops the statement, or ignores a cancel that arrives after
 * it ended (an idle session drops cancel requests).
 */
function cancelOnceSent(query: { cancel(): unknown }): void {
  setImmediate(() => void query.cancel());
}

/**
 * The COPY stream read in flowing mode into a queue of our own: Node emits
 * every chunk pushed before a destroy() ahead of its error, so the rows the
 * server sent before it stopped all reach the export, in order, and the
 * error comes after them.
 */
class CopyQueue {
  #chunks: Uint8Array[] = [];
  #bytes = 0;
  /** PostgreSQL sends one CopyData message, so one 'data' chunk, per row: counting them counts rows. */
  #rows = 0;
  /** …and the longest chunk is the longest row. */
  #longest = 0;
  #stream: Readable | null = null;
  #ended = false;
  #failed = false;
  #error: unknown = null;
  #wake: (() => void) | null = null;

  attach(stream: Readable): void {
    this.#stream = stream;
    stream.on('data', (chunk: Uint8Array) => {
      this.#chunks.push(chunk);
      this.#bytes += chunk.length;
      this.#rows++;
      if (chunk.length > this.#longest) this.#longest = chunk.length;
      if (this.#bytes >= COPY_QUEUE_BYTES) stream.pause();
      this.#notify();
    });
    // postgres.js pauses its socket whenever the stream's buffer is full (as
    // it is when a burst arrives before flowing starts) and resumes it only
    // from the stream's _read(). When the rest of the COPY, up to
    // ReadyForQuery, arrives in that burst, the stream ends or fails with the
    // socket paused and _read() is never called again, so the next statement
    // (the COMMIT or the ROLLBACK) would wait forever. Calling it once at the
    // end, either way, resumes the socket.
    const resumeSocket = () => {
      try {
        (stream as unknown as { _read(size: number): void })._read(0);
      } catch {
        // The connection itself is gone (the server ended it): there is no socket left to resume.
      }
    };
    stream.once('end', () => {
      this.#ended = true;
      resumeSocket();
      this.#notify();
    });
    stream.once('error', (error: unknown) => {
      resumeSocket();
      this.fail(error);
    });
  }

  fail(error: unknown): void {
    if (this.#ended || this.#failed) return;
    this.#failed = true;
    this.#error = error;
    this.#notify();
  }

  /** Everything queued so far as one chunk: PostgreSQL sends a message per row, too small to handle one by one. */
  async *chunks(): AsyncGenerator<SourceChunk> {
    for (;;) {
      if (this.#chunks.length > 0) {
        const chunk = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#bytes);
        const rows = this.#rows;
        const longestRow = this.#longest;
        this.#chunks = [];
        this.#bytes = 0;
        this.#rows = 0;
        this.#longest = 0;
        if (this.#stream?.isPaused() === true) this.#stream.resume();
        yield { bytes: chunk, rows, longestRow };
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

function csvField(value: Buffer | null): string {
  if (value === null) return '';
  return `"${value.toString('utf8').replaceAll('"', '""')}"`;
}

export function openCursorSource(tx: TransactionSql, textSql: string, params: unknown[]): RowSource {
  const query = tx.unsafe(textSql, params as never[]).raw() as unknown as PendingQuery<(Buffer | null)[][]>;
  async function* chunks(): AsyncGenerator<SourceChunk> {
    for await (const rows of query.cursor(CURSOR_BATCH) as AsyncIterable<(Buffer | null)[][]>) {
      let text = '';
      let longest = 0;
      for (const row of rows) {
        const line = row.map(csvField).join(',') + '\n';
        if (line.length > longest) longest = line.length;
        text += line;
      }
      // A UTF-16 code unit takes at most 3 bytes in UTF-8: a bound without measuring every line.
      yield { bytes: Buffer.from(text, 'utf8'), rows: rows.length, longestRow: longest * 3 };
    }
  }
  return { cancel: () => cancelOnceSent(query), [Symbol.asyncIterator]: chunks };
}
