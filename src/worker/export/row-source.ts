/**
 * What an export reads its rows from, whatever the engine: whole CSV
 * records in chunks, with what the source knows about them. Every driver's
 * row source writes the CSV PostgreSQL's COPY writes, because the core
 * reads it one way (duckdb-csv.ts, csv-record-scanner.ts): comma-separated,
 * a value quoted only where it must be, NULL as an unquoted empty field and
 * the empty string as "", one record per row ending in a newline, each
 * value as the column model's storage expects it (ISO dates and timestamps,
 * a BC one ending in " BC"). PostgreSQL's sources are in
 * datasources/postgres/export/ (row-sources.ts, copy-out.ts).
 */

/** Bytes of whole CSV records, how many records they hold when the source knows, and a bound on the longest. */
export interface SourceChunk {
  /**
   * Lent, not given: valid until the consumer asks for the next chunk, when
   * the source may write over them (the COPY reader reuses its buffers). A
   * consumer that keeps bytes past that copies them.
   */
  bytes: Uint8Array;
  rows: number | null;
  /** No record in `bytes` is longer than this (bytes, its newline included); the CSV reader must be told. */
  longestRow: number;
}

export interface RowSource extends AsyncIterable<SourceChunk> {
  /** Asks the server to stop the statement; the iteration then ends with an error. */
  cancel(): void;
}
