/**
 * The audit trail's statements. A batch is written with multi-row INSERTs
 * (a chunk of rows per statement keeps under both databases' limits on
 * bound parameters), and a retried batch changes nothing twice: entries
 * carry their own ids. Pages are read newest first by (at, id), so an
 * entry written while someone pages never makes a page repeat or skip one.
 */
import type { CatalogDb, Param } from './catalog-db.ts';
import type { AuditEntry, AuditQuery, RoundResult } from './catalog.ts';
import { iso, num } from './catalog-rows.ts';
import type { AuditAction, AuditOutcome } from '../vocabulary.ts';
import type { ErrorCode } from '../errors.ts';

const COLUMNS = 'id, at, principal, action, route, datasource, sql, artifact_id, outcome, error_code, row_count, byte_count, duration_ms, request_id';
const WIDTH = 14;
/** 200 x 14 parameters: well under SQLite's 32766 and PostgreSQL's 65535. */
const ROWS_PER_STATEMENT = 200;

interface AuditRow {
  id: string;
  at: string | Date;
  principal: string | null;
  action: AuditAction;
  route: string;
  datasource: string | null;
  sql: string | null;
  artifact_id: string | null;
  outcome: AuditOutcome;
  error_code: ErrorCode | null;
  row_count: number | string | null;
  byte_count: number | string | null;
  duration_ms: number | string | null;
  request_id: string | null;
}

function paramsOf(e: AuditEntry): Param[] {
  return [e.id, new Date(e.at), e.principal, e.action, e.route, e.datasource, e.sql, e.artifactId, e.outcome, e.errorCode, e.rows, e.bytes, e.durationMs, e.requestId];
}

const orNull = (value: number | string | null): number | null => (value === null ? null : num(value));

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: iso(row.at),
    principal: row.principal,
    action: row.action,
    route: row.route,
    datasource: row.datasource,
    sql: row.sql,
    artifactId: row.artifact_id,
    outcome: row.outcome,
    errorCode: row.error_code,
    rows: orNull(row.row_count),
    bytes: orNull(row.byte_count),
    durationMs: orNull(row.duration_ms),
    requestId: row.request_id,
  };
}

export async function appendAudit(db: CatalogDb, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const row = `(${Array.from({ length: WIDTH }, () => '?').join(', ')})`;
  await db.transaction(async (tx) => {
    for (let i = 0; i < entries.length; i += ROWS_PER_STATEMENT) {
      const chunk = entries.slice(i, i + ROWS_PER_STATEMENT);
      await tx.run(`INSERT INTO audit_entries (${COLUMNS}) VALUES ${chunk.map(() => row).join(', ')} ON CONFLICT (id) DO NOTHING`, chunk.flatMap(paramsOf));
    }
  });
}

export async function listAudit(db: CatalogDb, query: AuditQuery): Promise<AuditEntry[]> {
  const where: string[] = [];
  const params: Param[] = [];
  if (query.principal !== undefined) {
    where.push('principal = ?');
    params.push(query.principal);
  }
  if (query.action !== undefined) {
    where.push('action = ?');
    params.push(query.action);
  }
  if (query.since !== undefined) {
    where.push('at >= ?');
    params.push(query.since);
  }
  if (query.after !== undefined) {
    const at = new Date(query.after.at);
    where.push('(at < ? OR (at = ? AND id < ?))');
    params.push(at, at, query.after.id);
  }
  const filter = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  const rows = await db.read<AuditRow>(`SELECT ${COLUMNS} FROM audit_entries ${filter} ORDER BY at DESC, id DESC LIMIT ?`, [...params, query.limit]);
  return rows.map(toEntry);
}

export async function purgeAudit(db: CatalogDb, olderThan: Date, limit: number): Promise<RoundResult> {
  const count = await db.transaction((tx) => tx.run('DELETE FROM audit_entries WHERE id IN (SELECT id FROM audit_entries WHERE at < ? LIMIT ?)', [olderThan, limit]));
  return { count, more: count === limit };
}
