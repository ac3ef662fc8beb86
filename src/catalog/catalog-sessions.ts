/**
 * Sessions and deletion. A copy adds references to the same blobs (logical
 * usage up and checked, physical unchanged); retiring a session and deleting
 * an artifact tombstone rows and give back exactly what those rows held,
 * found through the (principal, session) index, so their cost follows the
 * session's size and never the store's.
 */
import { SluiceError } from '../errors.ts';
import { newArtifactId } from './artifact-id.ts';
import type { SessionCopyResult, SessionRelease } from './ports/artifacts-port.ts';
import { insertArtifact, type Quotas } from './catalog-commit.ts';
import { first, type CatalogDb, type CatalogTx } from './catalog-db.ts';
import { addSeconds, ARTIFACT_COLUMNS, num, toMeta, type ArtifactRow } from './catalog-rows.ts';
import { chargeArtifacts, lockUsage, releaseRows, type ReleasedRow } from './catalog-usage.ts';

export async function copySession(
  db: CatalogDb,
  tx: CatalogTx,
  quotas: Quotas,
  now: Date,
  args: { principal: string; source: string; target: string; ttlSeconds: number; artifactIds?: string[] | undefined },
): Promise<SessionCopyResult> {
  if (args.source === args.target) throw new SluiceError('VALIDATION_ERROR', 'targetSessionId must differ from the source session.');
  const usage = await lockUsage(db, tx, [args.principal]);
  const all = await tx.all<ArtifactRow>(
    `SELECT ${ARTIFACT_COLUMNS} FROM artifacts a WHERE a.principal = ? AND a.session_id = ? AND a.state = 'COMMITTED' AND a.expires_at > ? ORDER BY a.created_at, a.id`,
    [args.principal, args.source, now],
  );
  const rows = args.artifactIds === undefined ? all : chosen(all, args.artifactIds);
  const added = rows.reduce((sum, r) => sum + num(r.size_bytes), 0);
  if ((usage.logicalBytes.get(args.principal) ?? 0) + added > quotas.principalQuotaBytes) {
    throw new SluiceError('QUOTA_EXCEEDED', `Copying ${rows.length} artifact(s) (${added} bytes) would pass the quota of ${quotas.principalQuotaBytes} bytes.`);
  }
  const mapping: SessionCopyResult['mapping'] = [];
  for (const row of rows) {
    const target = { ...toMeta(row, now), id: newArtifactId(), sessionId: args.target, createdAt: now.toISOString(), expiresAt: addSeconds(now, args.ttlSeconds).toISOString() };
    await tx.run('UPDATE blobs SET refs = refs + 1 WHERE hash = ?', [row.hash]);
    await insertArtifact(tx, target, row.hash);
    mapping.push({ sourceArtifactId: row.id, targetArtifactId: target.id });
  }
  if (rows.length > 0) await chargeArtifacts(tx, args.principal, rows.length, added);
  return { mapping };
}

/**
 * The listed artifacts, in the session's order; any id that is not a readable artifact of the caller in the
 * source session (another principal's, expired, deleted, unknown) is NOT_FOUND, the same for each, so
 * nothing says which of those it was.
 */
function chosen(rows: ArtifactRow[], ids: string[]): ArtifactRow[] {
  const wanted = new Set(ids);
  const found = rows.filter((r) => wanted.has(r.id));
  const missing = [...wanted].filter((id) => !found.some((r) => r.id === id));
  if (missing.length > 0) {
    throw new SluiceError('NOT_FOUND', `No readable artifact ${missing.map((id) => `"${id}"`).slice(0, 5).join(', ')} in this session for this caller; nothing was copied.`, { artifactIds: missing.slice(0, 50) });
  }
  return found;
}

export async function retireSession(db: CatalogDb, tx: CatalogTx, now: Date, principal: string, sessionId: string): Promise<SessionRelease> {
  await lockUsage(db, tx, [principal]);
  const released = await tx.all<ReleasedRow>(
    `UPDATE artifacts SET state = 'DELETED', released_at = ? WHERE principal = ? AND session_id = ? AND state = 'COMMITTED' RETURNING principal, hash, size_bytes`,
    [now, principal, sessionId],
  );
  await releaseRows(tx, released, now);
  return { releasedArtifacts: released.length, releasedBytes: released.reduce((sum, r) => sum + num(r.size_bytes), 0) };
}

export async function deleteArtifact(db: CatalogDb, tx: CatalogTx, now: Date, principal: string, id: string): Promise<boolean> {
  const row = await first<{ state: string }>(tx, 'SELECT state FROM artifacts WHERE id = ? AND principal = ?', [id, principal]);
  if (row === undefined) return false;
  if (row.state !== 'COMMITTED') return true;
  await lockUsage(db, tx, [principal]);
  // Re-checked under the lock: a concurrent delete or expiry of the same row gives back its share once.
  const released = await tx.all<ReleasedRow>(
    `UPDATE artifacts SET state = 'DELETED', released_at = ? WHERE id = ? AND principal = ? AND state = 'COMMITTED' RETURNING principal, hash, size_bytes`,
    [now, id, principal],
  );
  await releaseRows(tx, released, now);
  return true;
}
