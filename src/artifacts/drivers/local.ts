/**
 * The local artifact store: Parquet parts in content-addressed directories
 * under the data dir and an embedded SQLite catalog. This file wires the
 * driver together; commit, reads, sessions and collection live beside it.
 * Opening it does no work that grows with the number of artifacts: leftover
 * staging directories and orphaned bytes are cleaned in the background.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SluiceError } from '../../errors.ts';
import { consoleLogger, type Logger } from '../../logger.ts';
import { openSqlite } from '../../runtime/sqlite.ts';
import { FILTER_OPS, type ArtifactPage, type ArtifactStore, type Capabilities } from '../types.ts';
import { ArtifactRows } from './artifact-rows.ts';
import { CATALOG_SCHEMA } from './catalog-schema.ts';
import { commitStaged } from './local-commit.ts';
import { collect, sweepOrphans } from './local-gc.ts';
import { layout, type CrashPoint, type LocalContext, type StoreWorkers } from './local-layout.ts';
import { aggregate, download, readableRow, readPage } from './local-reads.ts';
import { copySession, retireSession, usageOf } from './local-sessions.ts';

export interface LocalStoreOptions {
  dataDir: string;
  principalQuotaBytes: number;
  workspaceQuotaBytes: number;
  workers: StoreWorkers;
  log?: Logger;
  now?: () => Date;
  checkpoint?: (step: CrashPoint) => void;
}

const CAPABILITIES: Capabilities = {
  projection: true,
  filterOps: [...FILTER_OPS],
  sort: true,
  aggregate: true,
  formats: ['parquet', 'csv', 'jsonl'],
};

export function createLocalStore(options: LocalStoreOptions): ArtifactStore {
  const paths = layout(options.dataDir);
  for (const dir of [paths.stagingRoot, paths.objectsRoot, paths.downloadsRoot, paths.trashRoot]) mkdirSync(dir, { recursive: true });
  const db = openSqlite(paths.catalogFile);
  db.exec(CATALOG_SCHEMA);
  const ctx: LocalContext = {
    ...paths,
    db,
    rows: new ArtifactRows(db),
    workers: options.workers,
    log: options.log ?? consoleLogger,
    now: options.now ?? (() => new Date()),
    principalQuotaBytes: options.principalQuotaBytes,
    workspaceQuotaBytes: options.workspaceQuotaBytes,
    checkpoint: options.checkpoint ?? (() => undefined),
  };
  // Only what an earlier process left is swept; exports of this one stage beside it.
  const leftovers = [
    ...readdirSync(paths.stagingRoot).map((e) => join(paths.stagingRoot, e)),
    ...readdirSync(paths.downloadsRoot).map((e) => join(paths.downloadsRoot, e)),
  ];

  return {
    capabilities: CAPABILITIES,
    stagingDir: () => {
      const dir = join(paths.stagingRoot, randomUUID());
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    commit: (owner, staged, ttl) => commitStaged(ctx, owner, staged, ttl),
    abort: (dir) => rmSync(dir, { recursive: true, force: true }),
    get: (principal, id) => ctx.rows.toMeta(readableRow(ctx, principal, id)),
    read: (principal, id, request) => readPage(ctx, principal, id, request),
    aggregate: (principal, id, request) => aggregate(ctx, principal, id, request),
    download: (principal, id, format) => download(ctx, principal, id, format),
    list: (principal, sessionId, after, limit): ArtifactPage => {
      const page = ctx.rows.list(principal, sessionId, after, limit + 1, ctx.now().toISOString());
      const more = page.length > limit;
      const items = (more ? page.slice(0, limit) : page).map((r) => ctx.rows.toMeta(r));
      return { artifacts: items, nextCursor: more ? items[items.length - 1]!.id : null };
    },
    delete: (principal, id) => {
      const row = ctx.rows.find(principal, id);
      if (row === undefined) throw new SluiceError('NOT_FOUND', `No artifact "${id}" exists for this caller.`);
      db.transaction(() => ctx.rows.release(row, 'DELETED'))();
    },
    copySession: (principal, source, target, ttl) => copySession(ctx, principal, source, target, ttl),
    retireSession: (principal, sessionId) => retireSession(ctx, principal, sessionId),
    usage: (principal) => usageOf(ctx, principal),
    collect: (limits) => collect(ctx, limits),
    async sweepStaging() {
      let removed = 0;
      for (const dir of leftovers.splice(0)) {
        rmSync(dir, { recursive: true, force: true });
        removed++;
        await new Promise((r) => setImmediate(r));
      }
      return removed + (await sweepOrphans(ctx));
    },
    close: () => db.close(),
  };
}
