/**
 * Reads that take no lock: one artifact in any state (with its blob), the
 * keyset listing of readable artifacts, a blob, and the usage counters,
 * which are read as kept and never added up.
 */
import { SluiceError } from '../errors.ts';
import type { Usage } from './ports/artifacts-port.ts';
import type { ArtifactRecord, BlobRecord, ListRequest, ListResult } from './catalog.ts';
import type { CatalogDb, Param } from './catalog-db.ts';
import type { Quotas } from './catalog-commit.ts';
import { ARTIFACT_COLUMNS, num, toBlob, toMeta, type ArtifactRow, type BlobRow } from './catalog-rows.ts';

export async function findArtifact(db: CatalogDb, now: Date, principal: string, id: string): Promise<ArtifactRecord | undefined> {
  const rows = await db.read<ArtifactRow & { location: string | null; parts: string | null; blob_size: number | string | null }>(
    `SELECT ${ARTIFACT_COLUMNS}, b.location, b.parts, b.size_bytes AS blob_size FROM artifacts a LEFT JOIN blobs b ON b.hash = a.hash WHERE a.id = ? AND a.principal = ?`,
    [id, principal],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const blob = row.location === null || row.parts === null || row.blob_size === null ? null : toBlob({ hash: row.hash, location: row.location, parts: row.parts, size_bytes: row.blob_size, refs: 0 });
  return { meta: toMeta(row, now), blob };
}

export async function listArtifacts(db: CatalogDb, now: Date, principal: string, request: ListRequest): Promise<ListResult> {
  const clauses = ['a.principal = ?', "a.state = 'COMMITTED'", 'a.expires_at > ?'];
  const params: Param[] = [principal, now];
  if (request.sessionId !== undefined) {
    clauses.push('a.session_id = ?');
    params.push(request.sessionId);
  }
  if (request.after !== undefined) {
    const createdAt = new Date(request.after.createdAt);
    if (Number.isNaN(createdAt.getTime())) throw new SluiceError('INVALID_CURSOR', 'This listing cursor is not valid; list again without a cursor.');
    clauses.push('(a.created_at, a.id) < (?, ?)');
    params.push(createdAt, request.after.id);
  }
  const rows = await db.read<ArtifactRow>(
    `SELECT ${ARTIFACT_COLUMNS} FROM artifacts a WHERE ${clauses.join(' AND ')} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`,
    [...params, request.limit + 1],
  );
  const more = rows.length > request.limit;
  const artifacts = rows.slice(0, request.limit).map((r) => toMeta(r, now));
  const last = artifacts[artifacts.length - 1];
  return { artifacts, next: more && last !== undefined ? { createdAt: last.createdAt, id: last.id } : null };
}

export async function blobByHash(db: CatalogDb, hash: string): Promise<BlobRecord | undefined> {
  const rows = await db.read<BlobRow>('SELECT hash, location, parts, size_bytes, refs FROM blobs WHERE hash = ?', [hash]);
  return rows[0] === undefined ? undefined : toBlob(rows[0]);
}

/** The blob stored at an upload location, if any: a location no blob names is an orphan upload. */
export async function blobAtLocation(db: CatalogDb, location: string): Promise<BlobRecord | undefined> {
  const rows = await db.read<BlobRow>('SELECT hash, location, parts, size_bytes, refs FROM blobs WHERE location = ?', [location]);
  return rows[0] === undefined ? undefined : toBlob(rows[0]);
}

export async function usageOf(db: CatalogDb, quotas: Quotas, principal: string): Promise<Usage> {
  const mine = await db.read<{ artifacts: number | string; logical_bytes: number | string }>('SELECT artifacts, logical_bytes FROM principal_usage WHERE principal = ?', [principal]);
  const all = await db.read<{ artifacts: number | string; physical_bytes: number | string }>('SELECT artifacts, physical_bytes FROM workspace_usage WHERE id = 1');
  return {
    principal: { artifacts: num(mine[0]?.artifacts ?? 0), logicalBytes: num(mine[0]?.logical_bytes ?? 0), quotaBytes: quotas.principalQuotaBytes },
    workspace: { artifacts: num(all[0]?.artifacts ?? 0), physicalBytes: num(all[0]?.physical_bytes ?? 0), quotaBytes: quotas.workspaceQuotaBytes },
  };
}
