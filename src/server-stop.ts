/**
 * The order a server stops in. It never waits for start-up to finish first
 * (start-up may be waiting forever on a worker that never loads or a
 * catalog that never answers): closing what start-up waits on ends its
 * waits, and only then is the embedded database it may have started known.
 */
import type { Collector } from './artifacts/collector.ts';
import type { HistoryPurger } from './query/history-purger.ts';
import type { QueryHistory } from './query/query-history.ts';
import type { Store } from './artifacts/store/create-store.ts';
import type { SharedRateCounts } from './auth/shared-rate-counts.ts';
import type { DatasourceRegistry } from './datasources/registry.ts';
import type { QueryService } from './query/query-service.ts';
import type { WorkerPool } from './worker/worker-pool.ts';
import type { RunningServer } from './runtime/serve.ts';
import type { VisualizationStore } from './semantic/visualization-store.ts';
import type { StartProgress } from './server-start-up.ts';
import type { AuditRetention } from './audit/audit-retention.ts';
import type { AuditTrail } from './audit/audit-trail.ts';

export interface RunningParts {
  progress: StartProgress;
  startUp: Promise<void>;
  server: RunningServer;
  collector: Collector;
  historyPurger: HistoryPurger;
  queries: QueryService;
  history: QueryHistory;
  sharedRateCounts: SharedRateCounts | null;
  queryPool: WorkerPool;
  readPool: WorkerPool;
  registry: DatasourceRegistry;
  store: Store;
  visualizations: VisualizationStore;
  audit: { trail: AuditTrail; retention: AuditRetention } | null;
}

export async function stopSluice(parts: RunningParts): Promise<void> {
  parts.progress.stopping = true;
  parts.collector.stop();
  parts.historyPurger.stop();
  parts.audit?.retention.stop();
  // Running statements are cancelled on the database before the workers that run them stop.
  await parts.queries.cancelAll();
  await parts.server.close();
  await parts.sharedRateCounts?.stop();
  // The ends of the queries just cancelled are written to the history before the catalog closes.
  await parts.history.flush();
  // Every answer has gone and every query has ended: what they recorded goes to the catalog before it closes.
  await parts.audit?.trail.stop();
  await Promise.allSettled([parts.queryPool.close(), parts.readPool.close()]);
  await parts.registry.close();
  // Nothing runs on the store any more, and closing it ends start-up's wait for the catalog.
  await parts.store.close();
  // Start-up has ended by now (closing the query pool and the catalog ended its waits), so the
  // embedded database it may have started is known and stopped below.
  await parts.startUp.catch(() => undefined);
  await parts.progress.embedded?.stop();
  await parts.visualizations.close();
}
