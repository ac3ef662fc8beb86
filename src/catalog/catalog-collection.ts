/**
 * The catalog's side of collection, each step a bounded round over an
 * indexed candidate list: expiry tombstones artifacts past their TTL,
 * unreferenced blobs are offered once their release is older than a
 * watermark, a blob row goes only after its bytes are gone (and only if
 * nobody revived it meanwhile), and tombstones are purged after a
 * retention. Two replicas running a round at once each re-check under lock,
 * so nothing is given back twice.
 */
import type { BlobRecord, RoundResult } from './catalog.ts';
import { first, type CatalogDb, type CatalogTx } from './catalog-db.ts';
import { num, toBlob, type BlobRow } from './catalog-rows.ts';
import { lockUsage, placeholders, releaseRows, type ReleasedRow } from './catalog-usage.ts';

export async function expireRound(db: CatalogDb, tx: CatalogTx, now: Date, limit: number): Promise<RoundResult> {
  const candidates = await tx.all<{ id: string; principal: string }>(
    `SELECT id, principal FROM artifacts WHERE state = 'COMMITTED' AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
    [now, limit],
  );
  if (candidates.length === 0) return { count: 0, more: false };
  await lockUsage(db, tx, candidates.map((c) => c.principal));
  const released = await tx.all<ReleasedRow>(
    `UPDATE artifacts SET state = 'EXPIRED', released_at = ? WHERE id IN (${placeholders(candidates.length)}) AND state = 'COMMITTED' RETURNING principal, hash, size_bytes`,
    [now, ...candidates.map((c) => c.id)],
  );
  await releaseRows(tx, released, now);
  return { count: released.length, more: candidates.length === limit };
}

export async function unreferencedBlobs(db: CatalogDb, olderThan: Date, limit: number): Promise<BlobRecord[]> {
  // A NULL release time is a blob released before releases were timed (an older SQLite catalog): long ago.
  const rows = await db.read<BlobRow>(
    'SELECT hash, location, parts, size_bytes, refs FROM blobs WHERE refs <= 0 AND (released_at IS NULL OR released_at <= ?) ORDER BY released_at LIMIT ?',
    [olderThan, limit],
  );
  return rows.map(toBlob);
}

export async function dropBlob(db: CatalogDb, tx: CatalogTx, hash: string, location: string): Promise<boolean> {
  await lockUsage(db, tx, []);
  const gone = await first<{ size_bytes: number | string }>(tx, 'DELETE FROM blobs WHERE hash = ? AND location = ? AND refs <= 0 RETURNING size_bytes', [hash, location]);
  if (gone === undefined) return false;
  await tx.run('UPDATE workspace_usage SET blobs = blobs - 1, physical_bytes = physical_bytes - ? WHERE id = 1', [num(gone.size_bytes)]);
  return true;
}

export async function purgeTombstones(tx: CatalogTx, olderThan: Date, limit: number): Promise<RoundResult> {
  // Tombstones of an older SQLite catalog have no release time: their expiry stands in for it.
  const purged = await tx.run(
    `DELETE FROM artifacts WHERE id IN (
       SELECT id FROM artifacts WHERE state <> 'COMMITTED' AND COALESCE(released_at, expires_at) <= ? ORDER BY COALESCE(released_at, expires_at) LIMIT ?)`,
    [olderThan, limit],
  );
  return { count: purged, more: purged === limit };
}
