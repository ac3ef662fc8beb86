/**
 * A Catalog over either database: the dialect-neutral statements bound to
 * one port, one clock and one pair of quotas. Both implementations are this
 * function applied to their port, so they behave alike by construction.
 */
import type { Catalog, CatalogOptions } from './catalog.ts';
import { admitQuery } from './catalog-admission.ts';
import { commitArtifact } from './catalog-commit.ts';
import { dropBlob, expireRound, purgeTombstones, unreferencedBlobs } from './catalog-collection.ts';
import { releaseLease, renewLease, sharedSecret, tryLease } from './catalog-leases.ts';
import type { CatalogPort } from './catalog-port.ts';
import { cancelRequestsFor, findQuery, purgeQueries, putQuery, requestCancel } from './catalog-queries.ts';
import { countRequests, purgeRequestCounts } from './catalog-request-counts.ts';
import { findVisualization, saveVisualization } from './catalog-visualizations.ts';
import { blobAtLocation, blobByHash, findArtifact, listArtifacts, usageOf } from './catalog-reads.ts';
import { copySession, deleteArtifact, retireSession } from './catalog-sessions.ts';

export function catalogOver(port: CatalogPort, options: CatalogOptions): Catalog {
  const now = options.now ?? (() => new Date());
  const quotas = { principalQuotaBytes: options.principalQuotaBytes, workspaceQuotaBytes: options.workspaceQuotaBytes };
  return {
    ping: async () => void (await port.read('SELECT 1 AS ok')),
    commit: (request) => port.transaction((tx) => commitArtifact(port, tx, request, quotas, now())),
    find: (principal, id) => findArtifact(port, now(), principal, id),
    list: (principal, request) => listArtifacts(port, now(), principal, request),
    delete: (principal, id) => port.transaction((tx) => deleteArtifact(port, tx, now(), principal, id)),
    copySession: (principal, source, target, ttlSeconds) =>
      port.transaction((tx) => copySession(port, tx, quotas, now(), { principal, source, target, ttlSeconds })),
    retireSession: (principal, sessionId) => port.transaction((tx) => retireSession(port, tx, now(), principal, sessionId)),
    usage: (principal) => usageOf(port, quotas, principal),
    expireRound: (limit) => port.transaction((tx) => expireRound(port, tx, now(), limit)),
    unreferencedBlobs: (olderThan, limit) => unreferencedBlobs(port, olderThan, limit),
    dropBlob: (hash, location) => port.transaction((tx) => dropBlob(port, tx, hash, location)),
    blob: (hash) => blobByHash(port, hash),
    blobAtLocation: (location) => blobAtLocation(port, location),
    purgeTombstones: (olderThan, limit) => port.transaction((tx) => purgeTombstones(tx, olderThan, limit)),
    tryLease: (name, holder, ttlMs) => tryLease(port, now(), name, holder, ttlMs),
    renewLease: (name, holder, ttlMs) => renewLease(port, now(), name, holder, ttlMs),
    releaseLease: (name, holder) => releaseLease(port, name, holder),
    sharedSecret: (name, create) => sharedSecret(port, name, create),
    putQuery: (query) => putQuery(port, now(), query),
    findQuery: (principal, id) => findQuery(port, principal, id),
    requestCancel: (principal, id) => requestCancel(port, principal, id),
    cancelRequestsFor: (replica) => cancelRequestsFor(port, replica),
    purgeQueries: (olderThan, limit) => purgeQueries(port, olderThan, limit),
    admitQuery: (query, cap, aliveSince) => admitQuery(port, now(), query, cap, aliveSince),
    countRequests: (added, principals, since) => countRequests(port, added, principals, since),
    purgeRequestCounts: (olderThan, limit) => purgeRequestCounts(port, olderThan, limit),
    saveVisualization: (saved) => saveVisualization(port, saved),
    findVisualization: (principal, id) => findVisualization(port, principal, id),
    maintain: () => port.maintain(),
    close: () => port.close(),
  };
}
