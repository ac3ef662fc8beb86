/**
 * Admission of a query under the per-principal cap on running queries,
 * counted over every replica: the principal's usage row is locked (the
 * per-principal lock quotas already take, first in the one lock order), the
 * principal's running queries are counted, and the new one is recorded
 * RUNNING before the lock goes. Two replicas admitting at once therefore
 * take turns, and the second sees the first's row. A RUNNING row whose
 * replica stopped writing (killed) no longer counts once it is older than
 * `aliveSince`, so a lost replica cannot hold the principal's slots forever.
 */
import { first, type CatalogDb } from './catalog-db.ts';
import type { QueryAdmission, SharedQuery } from './catalog.ts';
import { num } from './catalog-rows.ts';

export async function admitQuery(db: CatalogDb, now: Date, query: SharedQuery, cap: number, aliveSince: Date): Promise<QueryAdmission> {
  return db.transaction(async (tx) => {
    await tx.run('INSERT INTO principal_usage (principal, artifacts, logical_bytes) VALUES (?, 0, 0) ON CONFLICT (principal) DO NOTHING', [query.principal]);
    await tx.all(`SELECT principal FROM principal_usage WHERE principal = ?${db.forUpdate}`, [query.principal]);
    const row = await first<{ n: number | string }>(tx, `SELECT count(*) AS n FROM queries WHERE principal = ? AND state = 'RUNNING' AND updated_at > ?`, [query.principal, aliveSince]);
    const running = num(row?.n ?? 0);
    if (running >= cap) return { admitted: false, running };
    await tx.run(`INSERT INTO queries (id, principal, replica, state, data, error, cancel_requested, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)`, [
      query.id,
      query.principal,
      query.replica,
      query.state,
      JSON.stringify(query.data),
      query.error === null ? null : JSON.stringify(query.error),
      now,
    ]);
    return { admitted: true };
  });
}
