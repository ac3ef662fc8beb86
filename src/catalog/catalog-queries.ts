/**
 * Running queries as every replica sees them: the replica that accepted a
 * query writes its state here (at start, as it progresses, at the end), any
 * other reads it to answer a poll, and asks for a cancel by raising a flag
 * the owner looks for. The state is the contract's `data` of the query, as
 * JSON, so a poll answered from here is the same answer the owner gives.
 */
import type { ErrorData } from '../errors.ts';
import type { QueryState } from '../vocabulary.ts';
import type { CatalogDb } from './catalog-db.ts';
import type { RoundResult, SharedQuery, SharedQueryState } from './catalog.ts';

interface QueryRow {
  id: string;
  principal: string;
  replica: string;
  state: QueryState;
  data: string;
  error: string | null;
  cancel_requested: number | boolean;
  updated_at: string | Date;
}

export async function putQuery(db: CatalogDb, now: Date, query: SharedQuery): Promise<void> {
  await db.transaction((tx) =>
    tx.run(
      `INSERT INTO queries (id, principal, replica, state, data, error, cancel_requested, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)
       ON CONFLICT (id) DO UPDATE SET state = excluded.state, data = excluded.data, error = excluded.error, updated_at = excluded.updated_at`,
      [query.id, query.principal, query.replica, query.state, JSON.stringify(query.data), query.error === null ? null : JSON.stringify(query.error), now],
    ),
  );
}

export async function findQuery(db: CatalogDb, principal: string, id: string): Promise<SharedQueryState | undefined> {
  const row = (await db.read<QueryRow>('SELECT * FROM queries WHERE id = ? AND principal = ?', [id, principal]))[0];
  if (row === undefined) return undefined;
  return {
    id: row.id,
    principal: row.principal,
    replica: row.replica,
    state: row.state,
    data: JSON.parse(row.data) as unknown,
    error: row.error === null ? null : (JSON.parse(row.error) as ErrorData),
    cancelRequested: row.cancel_requested === true || row.cancel_requested === 1,
    updatedAt: new Date(row.updated_at),
  };
}

/** False when there is no such running query of this principal. */
export async function requestCancel(db: CatalogDb, principal: string, id: string): Promise<boolean> {
  return (await db.transaction((tx) => tx.run(`UPDATE queries SET cancel_requested = 1 WHERE id = ? AND principal = ? AND state = 'RUNNING'`, [id, principal]))) === 1;
}

export async function cancelRequestsFor(db: CatalogDb, replica: string): Promise<string[]> {
  const rows = await db.read<{ id: string }>(`SELECT id FROM queries WHERE replica = ? AND state = 'RUNNING' AND cancel_requested = 1`, [replica]);
  return rows.map((r) => r.id);
}

/** Forgets at most `limit` queries not written since `olderThan`. */
export async function purgeQueries(db: CatalogDb, olderThan: Date, limit: number): Promise<RoundResult> {
  const count = await db.transaction((tx) => tx.run('DELETE FROM queries WHERE id IN (SELECT id FROM queries WHERE updated_at < ? LIMIT ?)', [olderThan, limit]));
  return { count, more: count === limit };
}
