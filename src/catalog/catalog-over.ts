/**
 * A Catalog over either database: the dialect-neutral statements bound to
 * one db, one clock and one pair of quotas. Both implementations are this
 * function applied to their db, so they behave alike by construction.
 */
import type { Catalog, CatalogOptions } from './catalog.ts';
import { admitQuery } from './catalog-admission.ts';
import { appendAudit, listAudit, purgeAudit } from './catalog-audit.ts';
import { commitArtifact } from './catalog-commit.ts';
import { dropBlob, expireRound, purgeTombstones, unreferencedBlobs } from './catalog-collection.ts';
import { releaseLease, renewLease, sharedSecret, tryLease } from './catalog-leases.ts';
import type { CatalogDb } from './catalog-db.ts';
import { cancelRequestsFor, findQuery, purgeQueries, putQuery, requestCancel } from './catalog-queries.ts';
import { countRequests, purgeRequestCounts } from './catalog-request-counts.ts';
import { deleteVisualization, findVisualization, listVisualizations, saveVisualization } from './catalog-visualizations.ts';
import { abandonHistory, listHistory, purgeHistory, putHistory } from './catalog-history.ts';
import { blobAtLocation, blobByHash, findArtifact, listArtifacts, usageOf } from './catalog-reads.ts';
import { copySession, deleteArtifact, retireSession } from './catalog-sessions.ts';
import { blobsAfter, sessionArtifacts, sessionsOf, sessionUsageOf } from './catalog-session-reads.ts';
import { importArtifacts } from './catalog-import.ts';

export function catalogOver(db: CatalogDb, options: CatalogOptions): Catalog {
  const now = options.now ?? (() => new Date());
  const quotas = { principalQuotaBytes: options.principalQuotaBytes, workspaceQuotaBytes: options.workspaceQuotaBytes };
  return {
    ping: async () => void (await db.read('SELECT 1 AS ok')),
    commit: (request) => db.transaction((tx) => commitArtifact(db, tx, request, quotas, now())),
    find: (principal, id) => findArtifact(db, now(), principal, id),
    list: (principal, request) => listArtifacts(db, now(), principal, request),
    delete: (principal, id) => db.transaction((tx) => deleteArtifact(db, tx, now(), principal, id)),
    copySession: (principal, source, target, ttlSeconds, artifactIds) =>
      db.transaction((tx) => copySession(db, tx, quotas, now(), { principal, source, target, ttlSeconds, artifactIds })),
    sessions: (principal) => sessionsOf(db, now(), principal),
    sessionUsage: (principal, sessionId) => sessionUsageOf(db, now(), principal, sessionId),
    sessionArtifacts: (principal, sessionId) => sessionArtifacts(db, now(), principal, sessionId),
    importArtifacts: (request) => db.transaction((tx) => importArtifacts(db, tx, request, quotas, now())),
    blobsAfter: (after, limit) => blobsAfter(db, after, limit),
    retireSession: (principal, sessionId) => db.transaction((tx) => retireSession(db, tx, now(), principal, sessionId)),
    usage: (principal) => usageOf(db, quotas, principal),
    expireRound: (limit) => db.transaction((tx) => expireRound(db, tx, now(), limit)),
    unreferencedBlobs: (olderThan, limit) => unreferencedBlobs(db, olderThan, limit),
    dropBlob: (hash, location) => db.transaction((tx) => dropBlob(db, tx, hash, location)),
    blob: (hash) => blobByHash(db, hash),
    blobAtLocation: (location) => blobAtLocation(db, location),
    purgeTombstones: (olderThan, limit) => db.transaction((tx) => purgeTombstones(tx, olderThan, limit)),
    tryLease: (name, holder, ttlMs) => tryLease(db, now(), name, holder, ttlMs),
    renewLease: (name, holder, ttlMs) => renewLease(db, now(), name, holder, ttlMs),
    releaseLease: (name, holder) => releaseLease(db, name, holder),
    sharedSecret: (name, create) => sharedSecret(db, name, create),
    putQuery: (query) => putQuery(db, now(), query),
    findQuery: (principal, id) => findQuery(db, principal, id),
    requestCancel: (principal, id) => requestCancel(db, principal, id),
    cancelRequestsFor: (replica) => cancelRequestsFor(db, replica),
    purgeQueries: (olderThan, limit) => purgeQueries(db, olderThan, limit),
    admitQuery: (query, cap, aliveSince) => admitQuery(db, now(), query, cap, aliveSince),
    countRequests: (added, principals, since) => countRequests(db, added, principals, since),
    purgeRequestCounts: (olderThan, limit) => purgeRequestCounts(db, olderThan, limit),
    saveVisualization: (saved) => saveVisualization(db, saved),
    findVisualization: (principal, id) => findVisualization(db, principal, id),
    listVisualizations: (principal, request) => listVisualizations(db, principal, request),
    deleteVisualization: (principal, id) => deleteVisualization(db, principal, id),
    putHistory: (entry) => putHistory(db, entry),
    listHistory: (principal, request) => listHistory(db, principal, request),
    abandonHistory: (submittedBefore, at, limit) => abandonHistory(db, submittedBefore, at, limit),
    purgeHistory: (olderThan, limit) => purgeHistory(db, olderThan, limit),
    appendAudit: (entries) => appendAudit(db, entries),
    listAudit: (query) => listAudit(db, query),
    purgeAudit: (olderThan, limit) => purgeAudit(db, olderThan, limit),
    maintain: () => db.maintain(),
    close: () => db.close(),
  };
}
