/**
 * The query history's statements, the same for both databases. Rows are
 * small on purpose (the SQL text and how the query ended): previews live in
 * the `queries` table for an hour, results in artifacts.
 */
import { SluiceError } from '../errors.ts';
import type { QueryState } from '../vocabulary.ts';
import type { CatalogDb, Param } from './catalog-db.ts';
import type { HistoryEntry, HistoryPage, HistoryRequest, RoundResult } from './catalog.ts';
import { iso, num } from './catalog-rows.ts';

interface HistoryRow {
  id: string;
  principal: string;
  datasource: string;
  sql: string;
  state: QueryState;
  submitted_at: string | Date;
  finished_at: string | Date | null;
  row_count: number | string | null;
  artifact_id: string | null;
  error_code: string | null;
}

const COLUMNS = 'id, principal, datasource, sql, state, submitted_at, finished_at, row_count, artifact_id, error_code';

export async function putHistory(db: CatalogDb, entry: HistoryEntry): Promise<void> {
  await db.transaction((tx) =>
    tx.run(
      `INSERT INTO query_history (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET state = excluded.state, finished_at = excluded.finished_at, row_count = excluded.row_count,
         artifact_id = excluded.artifact_id, error_code = excluded.error_code
       WHERE query_history.state = 'RUNNING' AND query_history.principal = excluded.principal`,
      [
        entry.queryId,
        entry.principal,
        entry.datasource,
        entry.sql,
        entry.state,
        new Date(entry.submittedAt),
        entry.finishedAt === null ? null : new Date(entry.finishedAt),
        entry.rows,
        entry.artifactId,
        entry.errorCode,
      ],
    ),
  );
}

export async function listHistory(db: CatalogDb, principal: string, request: HistoryRequest): Promise<HistoryPage> {
  const clauses = ['principal = ?'];
  const params: Param[] = [principal];
  if (request.state !== undefined) {
    clauses.push('state = ?');
    params.push(request.state);
  }
  if (request.datasource !== undefined) {
    clauses.push('datasource = ?');
    params.push(request.datasource);
  }
  if (request.after !== undefined) {
    const submittedAt = new Date(request.after.createdAt);
    if (Number.isNaN(submittedAt.getTime())) throw new SluiceError('VALIDATION_ERROR', 'This history cursor is not valid; list again without a cursor.');
    clauses.push('(submitted_at, id) < (?, ?)');
    params.push(submittedAt, request.after.id);
  }
  const rows = await db.read<HistoryRow>(`SELECT ${COLUMNS} FROM query_history WHERE ${clauses.join(' AND ')} ORDER BY submitted_at DESC, id DESC LIMIT ?`, [
    ...params,
    request.limit + 1,
  ]);
  const entries = rows.slice(0, request.limit).map(toEntry);
  const last = entries[entries.length - 1];
  return { entries, next: rows.length > request.limit && last !== undefined ? { createdAt: last.submittedAt, id: last.queryId } : null };
}

export async function abandonHistory(db: CatalogDb, submittedBefore: Date, now: Date, limit: number): Promise<RoundResult> {
  const count = await db.transaction((tx) =>
    tx.run(
      `UPDATE query_history SET state = 'FAILED', finished_at = ?, error_code = 'INTERNAL'
       WHERE id IN (SELECT id FROM query_history WHERE state = 'RUNNING' AND submitted_at < ? ORDER BY submitted_at LIMIT ?)`,
      [now, submittedBefore, limit],
    ),
  );
  return { count, more: count === limit };
}

export async function purgeHistory(db: CatalogDb, olderThan: Date, limit: number): Promise<RoundResult> {
  const count = await db.transaction((tx) =>
    tx.run('DELETE FROM query_history WHERE id IN (SELECT id FROM query_history WHERE submitted_at < ? ORDER BY submitted_at LIMIT ?)', [olderThan, limit]),
  );
  return { count, more: count === limit };
}

function toEntry(row: HistoryRow): HistoryEntry {
  return {
    queryId: row.id,
    principal: row.principal,
    datasource: row.datasource,
    sql: row.sql,
    state: row.state,
    submittedAt: iso(row.submitted_at),
    finishedAt: row.finished_at === null ? null : iso(row.finished_at),
    rows: row.row_count === null ? null : num(row.row_count),
    artifactId: row.artifact_id,
    errorCode: row.error_code,
  };
}
