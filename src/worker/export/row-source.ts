/**
 * What an export reads its rows from, whatever the statement: whole CSV
 * records in chunks, with what the source knows about them. The sources
 * (row-sources.ts) and the COPY reader (copy-out.ts) both speak it.
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
