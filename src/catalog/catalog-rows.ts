/**
 * Catalog rows as both databases return them, and their mapping to the
 * store's types. PostgreSQL answers int8 as text and timestamptz as Date,
 * SQLite answers numbers and ISO text: everything passes through `num` and
 * `iso` here, once.
 */
import type { PlannedColumn } from '../columns/column-plan.ts';
import type { ArtifactMeta } from './ports/artifacts-port.ts';
import type { ParquetPart } from '../worker/export-types.ts';
import type { ArtifactState, Cap, Coverage } from '../vocabulary.ts';
import type { BlobRecord } from './catalog.ts';

export interface ArtifactRow {
  id: string;
  principal: string;
  session_id: string;
  hash: string;
  state: ArtifactState;
  datasource: string;
  sql: string;
  columns: string;
  row_count: number | string;
  size_bytes: number | string;
  coverage: Coverage;
  bounded_by: Cap | null;
  created_at: string | Date;
  expires_at: string | Date;
}

export interface BlobRow {
  hash: string;
  location: string;
  parts: string;
  size_bytes: number | string;
  refs: number | string;
}

/** The artifact columns every statement selects, in one place. */
export const ARTIFACT_COLUMNS = 'a.id, a.principal, a.session_id, a.hash, a.state, a.datasource, a.sql, a.columns, a.row_count, a.size_bytes, a.coverage, a.bounded_by, a.created_at, a.expires_at';

export function num(value: number | string | bigint): number {
  return typeof value === 'number' ? value : Number(value);
}

export function iso(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : value;
}

/** A committed artifact past its TTL reads as EXPIRED before any collection round has tombstoned it. */
export function toMeta(row: ArtifactRow, now: Date): ArtifactMeta {
  const expiresAt = iso(row.expires_at);
  const lapsed = row.state === 'COMMITTED' && expiresAt <= now.toISOString();
  return {
    id: row.id,
    state: lapsed ? 'EXPIRED' : row.state,
    principal: row.principal,
    sessionId: row.session_id,
    sql: row.sql,
    datasource: row.datasource,
    columns: JSON.parse(row.columns) as PlannedColumn[],
    rowCount: num(row.row_count),
    sizeBytes: num(row.size_bytes),
    coverage: row.coverage,
    boundedBy: row.bounded_by,
    createdAt: iso(row.created_at),
    expiresAt,
  };
}

export function toBlob(row: BlobRow): BlobRecord {
  return { hash: row.hash, location: row.location, parts: JSON.parse(row.parts) as ParquetPart[], sizeBytes: num(row.size_bytes) };
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}
