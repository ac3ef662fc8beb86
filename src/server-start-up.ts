/**
 * The part of start-up that runs once the server listens: the embedded
 * database (when no DATABASE_URL is given), the datasources' checks, the
 * wait until a query can run, the secrets replicas share, then the work
 * that grows with stored data, in the background. What it has reached is
 * what /readyz and stop() ask about; a stop() during it cuts it short.
 */
import { resolve } from 'node:path';
import type { Collector } from './artifacts/collector.ts';
import type { HistoryPurger } from './query/history-purger.ts';
import type { OpenedStore } from './artifacts/store/open-store.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './datasources/postgres/embedded/start-embedded.ts';
import type { DatasourceRegistry } from './datasources/registry.ts';
import type { WorkerPool } from './worker/worker-pool.ts';
import { spillRoot, sweepSpills } from './worker/spill-directory.ts';
import { adoptSharedSecrets, type ServerAccess } from './server-access.ts';
import type { AuditRetention } from './audit/audit-retention.ts';

/** What start-up has reached, and whether stop() has begun. */
export interface StartProgress {
  datasourcesUp: boolean;
  stopping: boolean;
  /** The embedded database, once start-up has started it. */
  embedded: EmbeddedPostgres | null;
}

export interface StartUpParts {
  dataDir: string;
  /** This process's folder of DuckDB spills (worker/spill-directory.ts); the others' are swept at start. */
  spillDir: string;
  log: (line: string) => void;
  /** No datasource is `default`: start-up starts the embedded database as it. */
  embeddedWanted: boolean;
  registry: DatasourceRegistry;
  queryPool: WorkerPool;
  readPool: WorkerPool;
  stored: OpenedStore;
  collector: Collector;
  historyPurger: HistoryPurger;
  /** The audit trail's retention rounds (null: no audit). */
  audit: { retention: AuditRetention } | null;
  access: ServerAccess;
  tokensConfigured: boolean;
  progress: StartProgress;
}

export async function finishStartUp(parts: StartUpParts): Promise<void> {
  const { stored, progress } = parts;
  await startDatasources(parts);
  // Ready means a query can run now: an export worker has loaded (DuckDB included) and takes
  // tasks, and the artifact catalog has opened (a catalog that is down keeps this waiting, and
  // /readyz says so, while the server serves what it can). A worker that never loads, or a
  // catalog that never opens, keeps this waiting until stop() closes the pool or the store,
  // which ends the wait.
  await parts.queryPool.ready();
  await stored.catalog.opened;
  if (parts.access.shareSecrets) await adoptSharedSecrets(parts.access, stored.catalog.catalog, parts.tokensConfigured);
  // A stop() that came during the steps above has already closed the pools and the store these start on.
  if (progress.stopping) return;
  parts.readPool.prestart();
  // The stored parts are hashed once per process: now, behind the reads, rather than in the first read of each.
  stored.verifyStored();
  // Leftovers of exports interrupted by a crash: removed now that the server is serving.
  void stored.store.sweepScratch().catch((e: unknown) => parts.log(`Could not clean staged files: ${(e as Error).message}`));
  void sweepSpills(spillRoot(parts.dataDir), parts.spillDir).catch((e: unknown) => parts.log(`Could not clean spilled files: ${(e as Error).message}`));
  parts.collector.start();
  parts.historyPurger.start();
  parts.audit?.retention.start();
}

async function startDatasources({ embeddedWanted, dataDir, log, registry, progress }: StartUpParts): Promise<void> {
  if (embeddedWanted) {
    log('Starting the embedded PostgreSQL (no DATABASE_URL set)...');
    const embedded = await startEmbeddedPostgres({ dataDir: resolve(dataDir, 'pglite'), log });
    progress.embedded = embedded;
    await registry.add({ id: 'default', url: embedded.url, embedded: true });
  }
  await registry.logStartupWarnings(log);
  progress.datasourcesUp = true;
}

/**
 * Settles with start-up, unless stop() cut it short: such a start-up neither
 * failed nor made the server ready, so whoever waits for readiness is told
 * neither (npm start would exit with an error, or announce readiness, in
 * the middle of a clean shutdown).
 */
export function readyUnlessStopped(startUp: Promise<void>, progress: StartProgress): Promise<void> {
  return new Promise<void>((resolve, reject) =>
    startUp.then(
      () => {
        if (!progress.stopping) resolve();
      },
      (error: unknown) => {
        if (!progress.stopping) reject(error);
      },
    ),
  );
}
