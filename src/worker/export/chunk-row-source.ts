/**
 * The second shape of an export's rows: DuckDB result chunks, handed over
 * as the engine made them, for a source that is itself a DuckDB (a files
 * datasource). The core appends them to a table of its own DuckDB and
 * writes each part from that table, so no row is ever turned into text in
 * JavaScript (stream-table-to-parts.ts). The caps still count the bytes of
 * the PostgreSQL-COPY-style CSV the rows would take (row-source.ts): each
 * chunk carries, after the result's columns, one DOUBLE column with each
 * row's record length, computed by the source's engine in SQL.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';

export interface ChunkRowSource extends AsyncIterable<DuckDBDataChunk> {
  readonly shape: 'duckdb-chunks';
  /**
   * The columns of a table that holds the chunks, `c0 <type>, c1 <type>, …`,
   * in the result's order; the chunks have one column more, last: the bytes
   * of the row's CSV record, its newline included (DOUBLE, never NULL).
   */
  readonly tableColumns: string;
  /** Asks the engine to stop the statement; the iteration then ends with an error. */
  cancel(): void;
}

export function isChunkRowSource(source: object): source is ChunkRowSource {
  return (source as Partial<ChunkRowSource>).shape === 'duckdb-chunks';
}
