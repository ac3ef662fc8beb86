/**
 * The one place that turns the settings into an artifact store:
 * SLUICE_CATALOG_URL chooses the PostgreSQL catalog (else SQLite in the data
 * dir, at the path earlier versions used, so an existing data dir is
 * adopted), SLUICE_ARTIFACT_URL the bytes (see open-byte-store.ts). The
 * catalog opens in the background, so a catalog that is down at start
 * leaves the server up and not ready, and it recovers by itself.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import process from 'node:process';
import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { openByteStore } from '../bytes/open-byte-store.ts';
import { openPgCatalog } from '../../catalog/postgres/pg-catalog.ts';
import { openSqliteCatalog } from '../../catalog/sqlite/sqlite-catalog.ts';
import { createStore, type Store } from './create-store.ts';
import { lazyCatalog, type LazyCatalog } from './lazy-catalog.ts';
import type { CrashPoint, StoreWorkers } from './store-context.ts';

export interface OpenStoreOptions {
  workers: StoreWorkers;
  log: Logger;
  now?: () => Date;
  checkpoint?: (step: CrashPoint) => void;
}

export interface OpenedStore {
  store: Store;
  catalog: LazyCatalog;
  /** This process's name among the replicas of one catalog. */
  replica: string;
  /** Starts the byte store's background check of the stored parts (once the server serves). */
  verifyStored: () => void;
}

export function openStore(config: Pick<Config, 'dataDir' | 'catalogUrl' | 'artifactBytes' | 's3' | 'cacheBytes' | 'principalQuotaBytes' | 'workspaceQuotaBytes'>, options: OpenStoreOptions): OpenedStore {
  const local = join(config.dataDir, 'artifacts');
  mkdirSync(local, { recursive: true });
  const quotas = { principalQuotaBytes: config.principalQuotaBytes, workspaceQuotaBytes: config.workspaceQuotaBytes, ...(options.now ? { now: options.now } : {}) };
  const catalog = lazyCatalog(
    async () =>
      config.catalogUrl === undefined
        ? openSqliteCatalog({ file: join(local, 'catalog.sqlite'), ...quotas })
        : openPgCatalog({ url: config.catalogUrl, log: options.log, ...quotas }),
    options.log,
  );
  const bytes = openByteStore(config);
  const replica = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const store = createStore(
    {
      catalog: catalog.catalog,
      bytes,
      workers: options.workers,
      stagingRoot: join(local, 'staging'),
      downloadsRoot: join(local, 'downloads'),
      now: options.now ?? (() => new Date()),
      log: options.log,
      replica,
      checkpoint: options.checkpoint ?? (() => undefined),
    },
    async () => {
      bytes.close();
      await catalog.close();
    },
  );
  return { store, catalog, replica, verifyStored: () => bytes.verifyStored?.() };
}
