/**
 * Where an export's bytes come from. Both sources yield PostgreSQL's own CSV
 * (values quoted only where they must be), in which NULL is an unquoted empty
 * field and the empty string is always quoted (""), so the two never meet, in
 * chunks of whole records whose count and longest record they know. Quoting
 * every value (FORCE_QUOTE *) would cost the backend, the receive and DuckDB's
 * reader about 12 bytes a row more for the same values (bench/RESULTS.md). The COPY source lets PostgreSQL write the CSV
 * itself, the fast path; the cursor source serves statements COPY cannot
 * run (bound parameters, EXPLAIN) and fetches in batches, never row by row.
 */
import Cursor from 'pg-cursor';
import type pg from 'pg';
import { CopyOut } from './copy-out.ts';
import type { RowSource, SourceChunk } from '../../../worker/export/row-source.ts';
import { csvRecord } from '../../../worker/export/csv-record.ts';

export type { RowSource, SourceChunk } from '../../../worker/export/row-source.ts';

const CURSOR_BATCH = 5_000;

/** Every value as the text PostgreSQL sent; the connection's own parsers are not used. */
const AS_TEXT = { getTypeParser: () => (value: string) => value };

/**
 * The COPY is not awaited here: PostgreSQL sends nothing until its first
 * rows (or the end of a slow statement), and the export must be able to
 * cancel or time out from the start, so the export loop iterates at once.
 */
export function openCopySource(client: pg.Client, selectSql: string, cancel: () => void): RowSource {
  const copy = client.query(new CopyOut(`COPY (${selectSql}) TO STDOUT (FORMAT csv)`));
  return { cancel, [Symbol.asyncIterator]: () => copy[Symbol.asyncIterator]() };
}

/** The statement's rows through a portal, as CSV batches. */
export function openCursorSource(client: pg.Client, textSql: string, params: unknown[], cancel: () => void): RowSource {
  const cursor = client.query(new Cursor<(string | null)[]>(textSql, params, { rowMode: 'array', types: AS_TEXT }));
  async function* chunks(): AsyncGenerator<SourceChunk> {
    let failed = false;
    try {
      for (;;) {
        const rows = await cursor.read(CURSOR_BATCH).catch((error: unknown) => {
          failed = true;
          throw error;
        });
        if (rows.length === 0) return;
        let text = '';
        let longest = 0;
        for (const row of rows) {
          const line = csvRecord(row);
          if (line.length > longest) longest = line.length;
          text += line;
        }
        // A UTF-16 code unit takes at most 3 bytes in UTF-8: a bound without measuring every line.
        yield { bytes: Buffer.from(text, 'utf8'), rows: rows.length, longestRow: longest * 3 };
      }
    } finally {
      // After an error pg-cursor has already brought the session back to idle; closing again would wait
      // for a ReadyForQuery that never comes.
      if (!failed) await cursor.close();
    }
  }
  return { cancel, [Symbol.asyncIterator]: chunks };
}
