/**
 * An imported session: every artifact of a bundle committed in one
 * transaction, or none. The quotas are checked for the whole import at
 * once under the usage locks, so an import never lands half-way past a
 * quota; each distinct blob is taken once with as many references as the
 * import makes to it.
 */
import { newArtifactId } from './artifact-id.ts';
import type { ArtifactMeta, ImportOutcome, ImportRequest } from './ports/artifacts-port.ts';
import { insertArtifact, type Quotas } from './catalog-commit.ts';
import type { CatalogDb, CatalogTx } from './catalog-db.ts';
import { knownBlob, takeBlob } from './catalog-blobs.ts';
import { addSeconds, num } from './catalog-rows.ts';
import { chargeArtifacts, lockUsage } from './catalog-usage.ts';

export async function importArtifacts(db: CatalogDb, tx: CatalogTx, request: ImportRequest, quotas: Quotas, now: Date): Promise<ImportOutcome> {
  const usage = await lockUsage(db, tx, [request.principal]);
  const blobs = new Map(request.artifacts.map((a) => [a.blob.hash, a.blob]));
  const known = new Map<string, Awaited<ReturnType<typeof knownBlob>>>();
  for (const hash of [...blobs.keys()].sort()) known.set(hash, await knownBlob(tx, hash));
  const sizeOf = (hash: string) => {
    const row = known.get(hash);
    return row === undefined ? (blobs.get(hash)?.sizeBytes ?? 0) : num(row.size_bytes);
  };
  const logical = request.artifacts.reduce((sum, a) => sum + sizeOf(a.blob.hash), 0);
  const physical = [...blobs.keys()].filter((h) => known.get(h) === undefined).reduce((sum, h) => sum + sizeOf(h), 0);
  if ((usage.logicalBytes.get(request.principal) ?? 0) + logical > quotas.principalQuotaBytes) {
    return { decision: 'DENIED', message: `Importing ${request.artifacts.length} artifact(s) (${logical} bytes) would pass the quota of ${quotas.principalQuotaBytes} bytes; nothing was imported.` };
  }
  if (usage.physicalBytes + physical > quotas.workspaceQuotaBytes) {
    return { decision: 'DENIED', message: `The workspace has no room for ${physical} more bytes (quota ${quotas.workspaceQuotaBytes}); nothing was imported.` };
  }
  const liveLocations = new Set<string>();
  const staleLocations: string[] = [];
  for (const [hash, blob] of [...blobs].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const references = request.artifacts.filter((a) => a.blob.hash === hash).length;
    const taken = await takeBlob(tx, { ...blob, sizeBytes: sizeOf(hash) }, known.get(hash), references);
    liveLocations.add(taken.liveLocation);
    if (taken.staleLocation !== null) staleLocations.push(taken.staleLocation);
  }
  const mapping: { sourceArtifactId: string; targetArtifactId: string }[] = [];
  for (const artifact of request.artifacts) {
    const meta: ArtifactMeta = {
      id: newArtifactId(),
      state: 'COMMITTED',
      principal: request.principal,
      sessionId: request.sessionId,
      sql: artifact.sql,
      datasource: artifact.datasource,
      columns: artifact.columns,
      rowCount: artifact.rowCount,
      sizeBytes: sizeOf(artifact.blob.hash),
      coverage: artifact.coverage,
      boundedBy: artifact.boundedBy,
      createdAt: now.toISOString(),
      expiresAt: addSeconds(now, request.ttlSeconds).toISOString(),
    };
    await insertArtifact(tx, meta, artifact.blob.hash);
    mapping.push({ sourceArtifactId: artifact.sourceId, targetArtifactId: meta.id });
  }
  if (request.artifacts.length > 0) await chargeArtifacts(tx, request.principal, request.artifacts.length, logical);
  return { decision: 'CREATED', mapping, liveLocations: [...liveLocations], staleLocations };
}
