/**
 * The second shape of an export's rows: DuckDB result chunks, handed over
 * as the engine made them, for a source that is itself a DuckDB (a files
 * datasource). The core appends them to a table of its own DuckDB and
 * writes each part from that table, so no row is ever turned into text in
 * JavaScript (stream-table-to-parts.ts). The caps still count the bytes of
 * the PostgreSQL-COPY-style CSV the rows would take (row-source.ts): the
 * source says how to compute each record's length in SQL.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';

export interface ChunkRowSource extends AsyncIterable<DuckDBDataChunk> {
  readonly shape: 'duckdb-chunks';
  /** The columns of a table that holds the chunks, `c0 <type>, c1 <type>, …`, in the result's order. */
  readonly tableColumns: string;
  /**
   * A statement yielding, for each row of `rowsSql` (columns c0, c1, … as
   * in `tableColumns`) in its order, one column `len`: the bytes of the
   * row's CSV record, its newline included.
   */
  csvBytesSql(rowsSql: string): string;
  /** Asks the engine to stop the statement; the iteration then ends with an error. */
  cancel(): void;
}

export function isChunkRowSource(source: object): source is ChunkRowSource {
  return (source as Partial<ChunkRowSource>).shape === 'duckdb-chunks';
}
