/**
 * Reads over one principal's sessions, through the (principal, session)
 * index: the sessions it has readable artifacts in, what one session holds,
 * and one session's artifacts with their blobs (what an export bundles).
 * Sessions are not rows of their own: a session is the artifacts that name
 * it, so a session with nothing readable left is not listed.
 */
import type { ArtifactRecord, SessionSummary, SessionUsage } from './ports/artifacts-port.ts';
import type { BlobRecord } from './catalog.ts';
import type { CatalogDb } from './catalog-db.ts';
import { ARTIFACT_COLUMNS, iso, num, toBlob, toMeta, type ArtifactRow, type BlobRow } from './catalog-rows.ts';

const READABLE = "a.principal = ? AND a.state = 'COMMITTED' AND a.expires_at > ?";

export async function sessionsOf(db: CatalogDb, now: Date, principal: string): Promise<SessionSummary[]> {
  const rows = await db.read<{ session_id: string; artifacts: number | string; logical_bytes: number | string; last_used_at: string | Date }>(
    `SELECT a.session_id, COUNT(*) AS artifacts, SUM(a.size_bytes) AS logical_bytes, MAX(a.created_at) AS last_used_at
     FROM artifacts a WHERE ${READABLE} GROUP BY a.session_id ORDER BY MAX(a.created_at) DESC, a.session_id`,
    [principal, now],
  );
  return rows.map((r) => ({ sessionId: r.session_id, artifacts: num(r.artifacts), logicalBytes: num(r.logical_bytes), lastUsedAt: new Date(iso(r.last_used_at)).toISOString() }));
}

export async function sessionUsageOf(db: CatalogDb, now: Date, principal: string, sessionId: string): Promise<SessionUsage> {
  const rows = await db.read<{ artifacts: number | string; logical_bytes: number | string | null }>(
    `SELECT COUNT(*) AS artifacts, SUM(a.size_bytes) AS logical_bytes FROM artifacts a WHERE ${READABLE} AND a.session_id = ?`,
    [principal, now, sessionId],
  );
  return { sessionId, artifacts: num(rows[0]?.artifacts ?? 0), logicalBytes: num(rows[0]?.logical_bytes ?? 0) };
}

/** The session's readable artifacts, oldest first, each with its blob. */
export async function sessionArtifacts(db: CatalogDb, now: Date, principal: string, sessionId: string): Promise<(ArtifactRecord & { blob: BlobRecord })[]> {
  const rows = await db.read<ArtifactRow & { location: string; parts: string; blob_size: number | string }>(
    `SELECT ${ARTIFACT_COLUMNS}, b.location, b.parts, b.size_bytes AS blob_size FROM artifacts a JOIN blobs b ON b.hash = a.hash
     WHERE ${READABLE} AND a.session_id = ? ORDER BY a.created_at, a.id`,
    [principal, now, sessionId],
  );
  return rows.map((row) => ({ meta: toMeta(row, now), blob: toBlob({ hash: row.hash, location: row.location, parts: row.parts, size_bytes: row.blob_size, refs: 0 }) }));
}

/** A page of blobs in hash order after `after`, referenced or not: what a store check walks. */
export async function blobsAfter(db: CatalogDb, after: string | null, limit: number): Promise<BlobRecord[]> {
  const rows = await db.read<BlobRow>(
    `SELECT hash, location, parts, size_bytes, refs FROM blobs ${after === null ? '' : 'WHERE hash > ?'} ORDER BY hash LIMIT ?`,
    after === null ? [limit] : [after, limit],
  );
  return rows.map(toBlob);
}
