/**
 * A DuckDB result as the export core's row source, for results with a
 * column whose CSV text is not spelled out in SQL (table-source.ts takes
 * the others): DuckDB's own result chunks (about 2,048 rows each) fetched
 * one after another, never the whole result, each value turned into
 * PostgreSQL-COPY-style CSV (worker/export/row-source.ts) here and the
 * records handed on in batches. The source stops
 * at `rowLimit` rows by itself, so a capped export neither reads nor drains
 * the rest; `cancel` interrupts the statement on the engine, and the
 * fetch then fails with DuckDB's interrupt.
 */
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBType } from '@duckdb/node-api';
import type { RowSource, SourceChunk } from '../../../worker/export/row-source.ts';
import { csvRecord } from '../../../worker/export/csv-record.ts';
import { valueText } from './value-text.ts';
import { EngineStop } from './engine-stop.ts';

/** Records are gathered to about this many characters before a chunk is handed on. */
const BATCH_CHARS = 512 * 1024;

export interface ChunkSourceOptions {
  connection: DuckDBConnection;
  prepared: DuckDBPreparedStatement;
  columns: { name: string; type: DuckDBType }[];
  rowLimit: number;
  /** Called once the stream ended, however it ended. */
  onEnd(): void;
}

export function openChunkSource(options: ChunkSourceOptions): RowSource {
  const stop = new EngineStop(options.connection);
  async function* chunks(): AsyncGenerator<SourceChunk> {
    try {
      yield* valueByValue(options, stop);
    } finally {
      options.onEnd();
    }
  }
  return { cancel: () => stop.cancel(), [Symbol.asyncIterator]: chunks };
}

/** Each value formatted in JavaScript (value-text.ts), the records gathered to about BATCH_CHARS. */
async function* valueByValue({ prepared, columns, rowLimit }: ChunkSourceOptions, stop: EngineStop): AsyncGenerator<SourceChunk> {
  const texts = columns.map((c) => valueText(c.type, c.name));
  // Started inside the iteration: a statement that computes long before its first row can be cancelled from the start.
  const result = await stop.stream(prepared);
  let left = rowLimit;
  let text = '';
  let rows = 0;
  let longest = 0;
  while (left > 0) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    const values = chunk.getColumns();
    const count = Math.min(chunk.rowCount, left);
    for (let r = 0; r < count; r++) {
      const line = csvRecord(values.map((column, c) => (column[r] === null ? null : texts[c]!(column[r]!))));
      if (line.length > longest) longest = line.length;
      text += line;
    }
    rows += count;
    left -= count;
    if (text.length >= BATCH_CHARS) {
      // A UTF-16 code unit takes at most 3 bytes in UTF-8: a bound without measuring every line.
      yield { bytes: Buffer.from(text, 'utf8'), rows, longestRow: longest * 3 };
      text = '';
      rows = 0;
      longest = 0;
    }
  }
  if (rows > 0) yield { bytes: Buffer.from(text, 'utf8'), rows, longestRow: longest * 3 };
}
