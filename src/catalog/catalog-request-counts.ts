/**
 * Request counts per principal and minute, added to by every replica, so a
 * rate limit holds for the service rather than for each replica. A replica
 * sends what it counted since its last round and reads back the totals in
 * the same transaction; the additions are upserts on one row per (scope,
 * principal, window), taken in one order by everyone so two replicas
 * adding at once never deadlock.
 */
import type { CatalogDb } from './catalog-db.ts';
import type { RequestCount, RoundResult } from './catalog.ts';
import { num } from './catalog-rows.ts';
import { placeholders } from './catalog-usage.ts';

interface CountRow {
  scope: string;
  principal: string;
  window_start: string | Date;
  requests: number | string;
}

function order(a: RequestCount, b: RequestCount): number {
  return a.scope.localeCompare(b.scope) || a.principal.localeCompare(b.principal) || a.windowStart.getTime() - b.windowStart.getTime();
}

/** Adds `added` and answers every count of `principals` in windows from `since` on, after the addition. */
export async function countRequests(db: CatalogDb, added: RequestCount[], principals: string[], since: Date): Promise<RequestCount[]> {
  const watched = [...new Set(principals)];
  return db.transaction(async (tx) => {
    for (const count of [...added].sort(order)) {
      if (count.requests <= 0) continue;
      await tx.run(
        `INSERT INTO request_counts (scope, principal, window_start, requests) VALUES (?, ?, ?, ?)
         ON CONFLICT (scope, principal, window_start) DO UPDATE SET requests = request_counts.requests + excluded.requests`,
        [count.scope, count.principal, count.windowStart, count.requests],
      );
    }
    if (watched.length === 0) return [];
    const rows = await tx.all<CountRow>(
      `SELECT scope, principal, window_start, requests FROM request_counts WHERE window_start >= ? AND principal IN (${placeholders(watched.length)})`,
      [since, ...watched],
    );
    return rows.map((r) => ({ scope: r.scope, principal: r.principal, windowStart: new Date(r.window_start), requests: num(r.requests) }));
  });
}

/** Forgets at most `limit` counts of windows that started before `olderThan`. */
export async function purgeRequestCounts(db: CatalogDb, olderThan: Date, limit: number): Promise<RoundResult> {
  const count = await db.transaction((tx) =>
    tx.run(
      `DELETE FROM request_counts WHERE (scope, principal, window_start) IN
       (SELECT scope, principal, window_start FROM request_counts WHERE window_start < ? LIMIT ?)`,
      [olderThan, limit],
    ),
  );
  return { count, more: count === limit };
}
