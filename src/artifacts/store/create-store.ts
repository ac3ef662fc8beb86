/**
 * The artifact store: a catalog and a byte store composed behind the one
 * contract. Which catalog (SQLite in the data dir, or PostgreSQL shared by
 * replicas) and which bytes (a local directory, or an S3-compatible bucket
 * read through a bounded cache) is decided by the caller; this module only
 * joins them, so both combinations of each behave alike by construction.
 * Opening does no work that grows with the store: leftover scratch
 * directories of this process's previous life are removed in the
 * background by `sweepScratch`, and everything else by collection rounds.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SluiceError } from '../../errors.ts';
import type { ArtifactStore, Capabilities, StoreHealth } from '../types.ts';
import { checkAggregate, checkFormat, checkRead, STORE_CAPABILITIES } from './capabilities.ts';
import { decodeListCursor, encodeListCursor } from './list-cursor.ts';
import { collector } from './store-collect.ts';
import type { StoreContext } from './store-context.ts';
import { aggregate, download, readable, readPage } from './store-reads.ts';
import { pageCacheCounts } from './page-reads.ts';
import { beginStaging } from './store-staging.ts';
import { checkStoreRound } from './store-check.ts';
import { exportSession } from '../bundle/export-bundle.ts';
import { importSession } from '../bundle/import-session.ts';

export interface Store extends ArtifactStore {
  /** Removes scratch directories and download files an earlier run of this process left (a crash); run after start. */
  sweepScratch(): Promise<number>;
  /** Pages and aggregates served from the page cache (hits) and read from Parquet (misses), since the store opened. */
  pageCacheCounts(): { hits: number; misses: number };
}

/** `capabilities` are what this store declares and holds every request to (a test narrows them). */
export function createStore(ctx: StoreContext, closeAll: () => Promise<void>, capabilities: Capabilities = STORE_CAPABILITIES): Store {
  for (const dir of [ctx.stagingRoot, ctx.downloadsRoot]) mkdirSync(dir, { recursive: true });
  // Only what an earlier process left is swept; exports of this one stage beside it.
  const leftovers = [ctx.stagingRoot, ctx.downloadsRoot].flatMap((dir) => readdirSync(dir).map((e) => join(dir, e)));
  return {
    capabilities,
    begin: () => beginStaging(ctx),
    get: async (principal, id) => (await readable(ctx, principal, id)).meta,
    async read(principal, id, request) {
      checkRead(capabilities, request);
      return readPage(ctx, principal, id, request);
    },
    async aggregate(principal, id, request) {
      checkAggregate(capabilities, request);
      return aggregate(ctx, principal, id, request);
    },
    async download(principal, id, format) {
      checkFormat(capabilities, format);
      return download(ctx, principal, id, format);
    },
    async list(principal, sessionId, after, limit) {
      const page = await ctx.catalog.list(principal, { sessionId, after: after === undefined ? undefined : decodeListCursor(after), limit });
      return { artifacts: page.artifacts, nextCursor: page.next === null ? null : encodeListCursor(page.next) };
    },
    async delete(principal, id) {
      if (!(await ctx.catalog.delete(principal, id))) throw new SluiceError('NOT_FOUND', `No artifact "${id}" exists for this caller.`);
    },
    copySession: (principal, source, target, ttl, artifactIds) => ctx.catalog.copySession(principal, source, target, ttl, artifactIds),
    sessions: (principal) => ctx.catalog.sessions(principal),
    sessionUsage: (principal, sessionId) => ctx.catalog.sessionUsage(principal, sessionId),
    exportSession: (principal, sessionId) => exportSession(ctx, principal, sessionId),
    importSession: (principal, sessionId, body, options) => importSession(ctx, principal, sessionId, body, options),
    checkStore: (request) => checkStoreRound(ctx, request),
    retireSession: (principal, sessionId) => ctx.catalog.retireSession(principal, sessionId),
    usage: (principal) => ctx.catalog.usage(principal),
    collect: collector(ctx),
    async health() {
      const missing: StoreHealth = [];
      const [catalog, bytes] = await Promise.allSettled([ctx.catalog.ping(), ctx.bytes.probe()]);
      if (catalog.status === 'rejected') missing.push('catalog');
      if (bytes.status === 'rejected') missing.push('artifact storage');
      return missing;
    },
    async sweepScratch() {
      let removed = 0;
      for (const path of leftovers.splice(0)) {
        await rm(path, { recursive: true, force: true });
        removed++;
      }
      return removed;
    },
    pageCacheCounts: () => pageCacheCounts(ctx),
    close: closeAll,
  };
}
