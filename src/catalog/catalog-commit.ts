/**
 * Commit of an artifact: one transaction that locks the usage counters,
 * answers a repeated commit with the artifact it already made, checks both
 * quotas, references (or stores, or revives) the blob and charges the
 * counters. A retry after a lost answer therefore never charges twice, and
 * two replicas committing at once see each other's charge.
 */
import { newArtifactId } from './artifact-id.ts';
import type { ArtifactMeta } from './ports/artifacts-port.ts';
import type { CatalogCommitOutcome, CommitRequest } from './catalog.ts';
import { first, type CatalogDb, type CatalogTx } from './catalog-db.ts';
import { addSeconds, ARTIFACT_COLUMNS, num, toMeta, type ArtifactRow } from './catalog-rows.ts';
import { knownBlob, takeBlob } from './catalog-blobs.ts';
import { chargeArtifacts, lockUsage } from './catalog-usage.ts';

export interface Quotas {
  principalQuotaBytes: number;
  workspaceQuotaBytes: number;
}

function denied(message: string): CatalogCommitOutcome {
  return { decision: 'DENIED', reason: 'QUOTA_EXCEEDED', message };
}

async function repeated(tx: CatalogTx, request: CommitRequest, now: Date): Promise<ArtifactRow | undefined> {
  return first<ArtifactRow>(
    tx,
    `SELECT ${ARTIFACT_COLUMNS} FROM artifacts a
     WHERE a.principal = ? AND a.session_id = ? AND a.hash = ? AND a.state = 'COMMITTED' AND a.sql = ? AND a.datasource = ? AND a.expires_at > ?
     ORDER BY a.created_at DESC, a.id DESC LIMIT 1`,
    [request.owner.principal, request.owner.sessionId, request.blob.hash, request.sql, request.datasource, now],
  );
}

export async function commitArtifact(db: CatalogDb, tx: CatalogTx, request: CommitRequest, quotas: Quotas, now: Date): Promise<CatalogCommitOutcome> {
  const { owner, blob } = request;
  // Locks first: the repeat check and the quota check must see every commit that finished before this one.
  const usage = await lockUsage(db, tx, [owner.principal]);
  const prior = await repeated(tx, request, now);
  const known = await knownBlob(tx, blob.hash);
  if (prior !== undefined && known !== undefined) {
    return { decision: 'CREATED', artifact: toMeta(prior, now), repeated: true, liveLocation: known.location, staleLocation: null };
  }
  const size = known === undefined ? blob.sizeBytes : num(known.size_bytes);
  const logical = usage.logicalBytes.get(owner.principal) ?? 0;
  if (logical + size > quotas.principalQuotaBytes) {
    return denied(`This artifact (${size} bytes) would take ${owner.principal} past the quota of ${quotas.principalQuotaBytes} bytes; delete artifacts or retire a session.`);
  }
  if (known === undefined && usage.physicalBytes + size > quotas.workspaceQuotaBytes) {
    return denied(`The workspace has no room for ${size} more bytes (quota ${quotas.workspaceQuotaBytes}).`);
  }
  const taken = await takeBlob(tx, { ...blob, sizeBytes: size }, known, 1);
  const meta: ArtifactMeta = {
    id: newArtifactId(),
    state: 'COMMITTED',
    principal: owner.principal,
    sessionId: owner.sessionId,
    sql: request.sql,
    datasource: request.datasource,
    columns: request.columns,
    rowCount: request.rowCount,
    sizeBytes: size,
    coverage: request.coverage,
    boundedBy: request.boundedBy,
    createdAt: now.toISOString(),
    expiresAt: addSeconds(now, request.ttlSeconds).toISOString(),
  };
  await insertArtifact(tx, meta, blob.hash);
  await chargeArtifacts(tx, owner.principal, 1, size);
  return { decision: 'CREATED', artifact: meta, repeated: false, ...taken };
}

/** The row only: the caller charges the counters and counts the blob reference. */
export async function insertArtifact(tx: CatalogTx, meta: ArtifactMeta, hash: string): Promise<void> {
  await tx.run(
    `INSERT INTO artifacts (id, principal, session_id, hash, state, datasource, sql, columns, row_count, size_bytes, coverage, bounded_by, created_at, expires_at, released_at)
     VALUES (?, ?, ?, ?, 'COMMITTED', ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
    [meta.id, meta.principal, meta.sessionId, hash, meta.datasource, meta.sql, JSON.stringify(meta.columns), meta.rowCount, meta.sizeBytes, meta.coverage, meta.boundedBy, new Date(meta.createdAt), new Date(meta.expiresAt)],
  );
}
