/**
 * Where an export's bytes come from. Both sources yield PostgreSQL CSV with
 * every non-NULL value quoted, so NULL (an unquoted empty field) and the
 * empty string ("") never meet. The COPY source lets PostgreSQL write the
 * CSV itself, the fast path; the cursor source serves statements COPY cannot
 * run (bound parameters, EXPLAIN) and fetches in batches, never row by row.
 */
import type { PendingQuery, TransactionSql } from 'postgres';

export interface RowSource extends AsyncIterable<Uint8Array> {
  /** Asks the server to stop the statement; the iteration then ends with an error. */
  cancel(): void;
}

const CURSOR_BATCH = 5_000;

export async function openCopySource(tx: TransactionSql, selectSql: string): Promise<RowSource> {
  const query = tx.unsafe(`COPY (${selectSql}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)`);
  const stream = await query.readable();
  // postgres.js pauses its socket whenever the stream's buffer is full and
  // resumes it only from the stream's _read(). When the whole COPY (up to
  // ReadyForQuery) arrives while the buffer is full, the stream ends paused
  // and _read() is never called again, so the next statement (the COMMIT)
  // would wait forever. Calling it once at the end resumes the socket.
  stream.once('end', () => (stream as unknown as { _read(size: number): void })._read(0));
  return {
    cancel: () => query.cancel(),
    [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator](),
  };
}

function csvField(value: Buffer | null): string {
  if (value === null) return '';
  return `"${value.toString('utf8').replaceAll('"', '""')}"`;
}

export function openCursorSource(tx: TransactionSql, textSql: string, params: unknown[]): RowSource {
  const query = tx.unsafe(textSql, params as never[]).raw() as unknown as PendingQuery<(Buffer | null)[][]>;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const rows of query.cursor(CURSOR_BATCH) as AsyncIterable<(Buffer | null)[][]>) {
      let text = '';
      for (const row of rows) text += row.map(csvField).join(',') + '\n';
      yield Buffer.from(text, 'utf8');
    }
  }
  return { cancel: () => query.cancel(), [Symbol.asyncIterator]: chunks };
}
