/**
 * The usage counters and the one lock order every writer follows: the
 * principals' rows (sorted), then the workspace row, then blobs and
 * artifacts. Holding the counter rows while checking and charging them is
 * what makes a quota hold when several replicas commit at once; one order
 * for everyone is what keeps that from deadlocking.
 */
import { first, type CatalogDb, type CatalogTx } from './catalog-db.ts';
import { num } from './catalog-rows.ts';

export interface LockedUsage {
  logicalBytes: Map<string, number>;
  physicalBytes: number;
}

export function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

export async function lockUsage(db: CatalogDb, tx: CatalogTx, principals: string[]): Promise<LockedUsage> {
  const logicalBytes = new Map<string, number>();
  for (const principal of [...new Set(principals)].sort()) {
    // The row must exist to be locked; a new principal's row is created empty, which changes no count.
    await tx.run('INSERT INTO principal_usage (principal, artifacts, logical_bytes) VALUES (?, 0, 0) ON CONFLICT (principal) DO NOTHING', [principal]);
    const row = await first<{ logical_bytes: number | string }>(tx, `SELECT logical_bytes FROM principal_usage WHERE principal = ?${db.forUpdate}`, [principal]);
    logicalBytes.set(principal, num(row?.logical_bytes ?? 0));
  }
  const all = await first<{ physical_bytes: number | string }>(tx, `SELECT physical_bytes FROM workspace_usage WHERE id = 1${db.forUpdate}`);
  return { logicalBytes, physicalBytes: num(all?.physical_bytes ?? 0) };
}

/** Counts new artifacts of one principal. */
export async function chargeArtifacts(tx: CatalogTx, principal: string, artifacts: number, bytes: number): Promise<void> {
  await tx.run('UPDATE principal_usage SET artifacts = artifacts + ?, logical_bytes = logical_bytes + ? WHERE principal = ?', [artifacts, bytes, principal]);
  await tx.run('UPDATE workspace_usage SET artifacts = artifacts + ? WHERE id = 1', [artifacts]);
}

export interface ReleasedRow {
  principal: string;
  hash: string;
  size_bytes: number | string;
}

/**
 * Gives back what tombstoned artifacts held: their principals' counts and
 * their blobs' references. A blob whose count reaches zero records when, so
 * collection can leave recently released blobs alone.
 */
export async function releaseRows(tx: CatalogTx, rows: ReleasedRow[], now: Date): Promise<void> {
  const byPrincipal = new Map<string, { artifacts: number; bytes: number }>();
  const byHash = new Map<string, number>();
  for (const row of rows) {
    const sum = byPrincipal.get(row.principal) ?? { artifacts: 0, bytes: 0 };
    byPrincipal.set(row.principal, { artifacts: sum.artifacts + 1, bytes: sum.bytes + num(row.size_bytes) });
    byHash.set(row.hash, (byHash.get(row.hash) ?? 0) + 1);
  }
  for (const [hash, count] of [...byHash].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await tx.run('UPDATE blobs SET refs = refs - ?, released_at = CASE WHEN refs - ? <= 0 THEN ? ELSE released_at END WHERE hash = ?', [count, count, now, hash]);
  }
  for (const [principal, sum] of byPrincipal) await chargeArtifacts(tx, principal, -sum.artifacts, -sum.bytes);
}
