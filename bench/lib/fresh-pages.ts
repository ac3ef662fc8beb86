/**
 * Page requests that are never a repeat of one served before: Sluice keeps
 * recent pages in memory, so a figure meant to measure reading the Parquet
 * (against DuckDB direct, or S3 bytes against local ones) must ask for a
 * new page every time.
 */
import { CursorCodec, readShape } from '../../src/artifacts/cursor.ts';
import { PRINCIPAL } from './sluice.ts';

/** Bodies of plain page reads at offsets 7919 pages apart, wrapping within `rows`: the n-th call's page is new for any n below rows ÷ limit. */
export function freshPages(cursorKey: string, artifactId: string, rows: number, limit: number): () => { limit: number; cursor: string } {
  const codec = new CursorCodec(cursorKey);
  const pages = Math.floor((rows - limit) / limit);
  let n = 0;
  return () => ({ limit, cursor: codec.encode(artifactId, PRINCIPAL, readShape({}), ((n++ * 7919) % pages) * limit + 1) });
}
