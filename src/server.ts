/**
 * Builds and starts a whole Sluice server from a Config: secrets, tokens,
 * datasources (starting the embedded one when no DATABASE_URL is given), the
 * worker pools, the artifact store, the app, the listener. Listening comes
 * first, so /healthz answers at once; /readyz answers 200 while every
 * datasource is up, a query worker can take a task and the store is usable.
 * Work that grows with stored data runs only in the background after.
 * startSluice reads as that assembly; what runs once the server listens is
 * server-start-up.ts, and the order it stops in is server-stop.ts.
 */
import { resolve } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from './app.ts';
import { openStore, type OpenedStore } from './artifacts/store/open-store.ts';
import type { AppEnv } from './auth/middleware.ts';
import type { Config } from './config.ts';
import { DatasourceRegistry, type DatasourceSpec } from './datasources/registry.ts';
import { QueryService } from './query/query-service.ts';
import { poolLanes, WindowBatches } from './worker/window-batches.ts';
import { WorkerPool } from './worker/worker-pool.ts';
import { windowBoundFor } from './worker/window-bound.ts';
import { roomForWorkerBuffers } from './runtime/worker-heaps.ts';
import type { QueryWorkerData } from './worker/protocol.ts';
import type { Readiness } from './routes/system/handlers.ts';
import { serve } from './runtime/serve.ts';
import { createLlm } from './ai/llm.ts';
import { SemanticCatalog } from './semantic/catalog.ts';
import { loadModels } from './semantic/load-models.ts';
import type { ExploreDef } from './semantic/model-schema.ts';
import { SemanticService } from './semantic/semantic-service.ts';
import { catalogVisualizations, localVisualizations, type VisualizationStore } from './semantic/visualization-store.ts';
import { SharedRateCounts } from './auth/shared-rate-counts.ts';
import { Collector } from './artifacts/collector.ts';
import { HistoryPurger } from './query/history-purger.ts';
import { QueryHistory } from './query/query-history.ts';
import { consoleLogger, withRequestIds, type Logger } from './logger.ts';
import { SluiceMetrics } from './metrics/sluice-metrics.ts';
import { addScrapedMetrics, type ScrapeSources } from './metrics/scraped-metrics.ts';
import { loadAccess, type ServerAccess } from './server-access.ts';
import { finishStartUp, readyUnlessStopped, type StartProgress } from './server-start-up.ts';
import { stopSluice, type RunningParts } from './server-stop.ts';
import { AuditTrail } from './audit/audit-trail.ts';
import { AuditRetention } from './audit/audit-retention.ts';
import { queryEntry } from './audit/query-entry.ts';
import type { AuditPort } from './catalog/ports/audit-port.ts';
import { processSpillDir, spillRoot } from './worker/spill-directory.ts';

const QUERY_WORKER = new URL('../workers/query-worker.ts', import.meta.url);

export interface Sluice {
  url: string;
  port: number;
  app: OpenAPIHono<AppEnv>;
  /** The generated admin token, when no tokens were configured (with a shared catalog, known once it answers). */
  readonly generatedToken: string | null;
  /** Resolves when every datasource is up; never settles if stop() cuts start-up short. */
  ready: Promise<void>;
  /** Statements handed to a database since start, for operators and tests. */
  queriesSubmitted(): number;
  /** A datasource's connection URL (the embedded one is known only once it is up). */
  datasourceUrl(id: string): string | undefined;
  stop(): Promise<void>;
}

/** What a test may swap; `npm start` and every other caller pass none of it. */
export interface StartSeams {
  /** The query pool's worker entry, so a test can give it workers that crash or fail to load. */
  queryWorker?: URL;
  /** False: no audit trail is recorded (the baseline a benchmark compares the audit's cost against). */
  audit?: boolean;
  /** The most audit entries held while the catalog cannot take them (a test fills it with a few). */
  auditQueue?: number;
}

export async function startSluice(config: Config, logger: Logger = consoleLogger, seams: StartSeams = {}): Promise<Sluice> {
  const log = (line: string) => logger.info(line);
  // First, before anything starts: an invalid model file stops start-up with a message naming it.
  const explores = loadModels(resolve(config.modelsDir));
  const dataDir = resolve(config.dataDir);
  const access = await loadAccess(config, dataDir, log);
  const { registry, embeddedWanted } = await planDatasources(config, logger);
  const spillDir = processSpillDir(spillRoot(dataDir));
  const { queryPool, readPool, readWindows } = createPools(config, spillDir, logger, seams);
  // What works on behalf of requests names the request in its log lines; pools and connections do not (see withRequestIds).
  const stored = openArtifactStore(config, dataDir, withRequestIds(logger), readPool, readWindows);
  const metrics = new SluiceMetrics();
  const services = buildServices(config, logger, { registry, queryPool, stored, explores, dataDir, shareSecrets: access.shareSecrets, metrics, seams });
  addScrapedMetrics(metrics.registry, scrapeSources(queryPool, readPool, readWindows, stored, services.collector));
  const progress: StartProgress = { datasourcesUp: false, stopping: false, embedded: null };
  const readiness = readinessCheck(progress, registry, queryPool, stored);
  const app = buildApp(config, withRequestIds(logger), { access, registry, store: stored.store, services, readiness, metrics, catalog: stored.catalog.catalog });
  const server = await serve(app.fetch, config.port, config.host);
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;
  const { collector, historyPurger, queries, history, sharedRateCounts, visualizations, audit } = services;
  const tokensConfigured = config.tokens !== undefined;
  // Listening already: the rest of start-up runs behind it, and stop() may come at any point of it.
  const startUp = finishStartUp({ dataDir, spillDir, log, embeddedWanted, registry, queryPool, readPool, stored, collector, historyPurger, audit, access, tokensConfigured, progress });
  const running: RunningParts = { progress, startUp, server, collector, historyPurger, queries, history, sharedRateCounts, queryPool, readPool, registry, store: stored.store, visualizations, audit };
  return {
    url,
    port: server.port,
    app,
    get generatedToken() {
      return access.generatedToken;
    },
    ready: readyUnlessStopped(startUp, progress),
    datasourceUrl: (id) => registry.urlOf(id),
    queriesSubmitted: () => queries.submitted,
    stop: () => stopSluice(running),
  };
}

/** The configured datasources; with no DATABASE_URL and none named `default`, `default` is the embedded database, starting. */
async function planDatasources(config: Config, logger: Logger): Promise<{ registry: DatasourceRegistry; embeddedWanted: boolean }> {
  const specs: DatasourceSpec[] = config.datasources.map((d) => ({ id: d.id, url: d.url, kind: d.kind, description: d.description, claimSettings: d.claimSettings }));
  if (config.databaseUrl !== undefined) specs.unshift({ id: 'default', url: config.databaseUrl, setting: 'DATABASE_URL' });
  const embeddedWanted = config.databaseUrl === undefined && !specs.some((s) => s.id === 'default');
  const registry = await DatasourceRegistry.open(specs, config.queryWorkers, logger);
  if (embeddedWanted) registry.markStarting('default', 'postgres');
  return { registry, embeddedWanted };
}

function createPools(config: Config, spillDir: string, logger: Logger, seams: StartSeams): { queryPool: WorkerPool; readPool: WorkerPool; readWindows: WindowBatches } {
  roomForWorkerBuffers();
  // Exports run PostgreSQL, the stream and DuckDB's conversion side by side: one DuckDB
  // thread each leaves the other core to the database (measured faster on 2 cores).
  const exportWorker: QueryWorkerData = { duckdbThreads: 1, duckdbMemoryLimit: '256MB', spillDir };
  const readWorker: QueryWorkerData = { duckdbThreads: 2, duckdbMemoryLimit: '512MB', spillDir, windowBytes: windowBoundFor(config.readWorkers) };
  const queryPool = new WorkerPool(seams.queryWorker ?? QUERY_WORKER, config.queryWorkers, exportWorker, 1, logger);
  // The read pool's first worker starts once the server is ready, in the background: start-up
  // does not wait for it, and the first read does not pay for loading it.
  const readPool = new WorkerPool(QUERY_WORKER, config.readWorkers, readWorker, 0, logger);
  return { queryPool, readPool, readWindows: new WindowBatches(poolLanes(readPool), readPool.capacity) };
}

/** The artifact store, whose reads and file writes run on the read pool, and its plain pages on windows the pool's workers keep. */
function openArtifactStore(config: Config, dataDir: string, logger: Logger, readPool: WorkerPool, readWindows: WindowBatches): OpenedStore {
  return openStore(
    { ...config, dataDir },
    {
      log: logger,
      workers: {
        read: async (sql, params, options) => (await readPool.run({ type: 'read', sql, params, small: options?.small === true }).result).rowsJson,
        windows: readWindows,
        writeFile: async (task) => void (await readPool.run({ type: 'write-file', ...task }).result),
      },
    },
  );
}

interface Services {
  queries: QueryService;
  history: QueryHistory;
  historyPurger: HistoryPurger;
  collector: Collector;
  semantic: SemanticService;
  visualizations: VisualizationStore;
  sharedRateCounts: SharedRateCounts | null;
  audit: { trail: AuditTrail; retention: AuditRetention } | null;
}

interface ServiceParts {
  registry: DatasourceRegistry;
  queryPool: WorkerPool;
  stored: OpenedStore;
  explores: ExploreDef[];
  dataDir: string;
  shareSecrets: boolean;
  metrics: SluiceMetrics;
  seams: StartSeams;
}

function buildServices(config: Config, logger: Logger, { registry, queryPool, stored, explores, dataDir, shareSecrets, metrics, seams }: ServiceParts): Services {
  const { store, catalog, replica } = stored;
  // With a shared catalog, running queries are published there so any replica can poll and cancel them.
  const queries = new QueryService(config, registry, store, queryPool, withRequestIds(logger), shareSecrets ? { catalog: catalog.catalog, replica } : undefined);
  queries.onEnded((ended) => metrics.queryEnded(ended));
  // Every caller's history lives in the catalog, SQLite or shared, so every replica lists the same.
  const history = new QueryHistory(catalog.catalog, withRequestIds(logger));
  history.watch(queries);
  const historyPurger = new HistoryPurger(catalog.catalog, { retentionDays: config.queryHistoryDays, maxDurationMs: config.maxDurationMs }, (line) => logger.info(line));
  const collector = new Collector(store, (line) => logger.info(line));
  const semantic = new SemanticService(new SemanticCatalog(explores), queries, (id) => registry.dialectOf(id), config.mergeSourceRows);
  // With a shared catalog, saved charts and request counts live there too, so every replica sees the same.
  const visualizations = shareSecrets ? catalogVisualizations(catalog.catalog) : localVisualizations(dataDir);
  const sharedRateCounts = shareSecrets ? new SharedRateCounts(catalog.catalog, logger) : null;
  sharedRateCounts?.start();
  const audit = seams.audit === false ? null : buildAudit(config, logger, stored, seams);
  if (audit !== null) queries.onEnded((ended) => audit.trail.record(queryEntry(ended)));
  return { queries, history, historyPurger, collector, semantic, visualizations, sharedRateCounts, audit };
}

/** The audit trail, in the catalog every replica shares, and the rounds that keep it within its retention. */
function buildAudit(config: Config, logger: Logger, { catalog, replica }: OpenedStore, seams: StartSeams): Services['audit'] {
  const trail = new AuditTrail(catalog.catalog, logger, seams.auditQueue === undefined ? {} : { maxQueued: seams.auditQueue });
  // Writing starts at once: entries of requests answered before the catalog opens wait for it in the queue.
  trail.start();
  const retention = new AuditRetention(catalog.catalog, { replica, retentionDays: config.auditRetentionDays, log: (line) => logger.info(line) });
  return { trail, retention };
}

/**
 * /readyz is 200 while a datasource can be reached (the others listed as
 * degraded, so a load balancer keeps the replica for what it can serve), a
 * query worker can take a task and the store is usable.
 */
function readinessCheck(progress: StartProgress, registry: DatasourceRegistry, queryPool: WorkerPool, { store }: OpenedStore): () => Promise<Readiness> {
  return async () => {
    const missing: string[] = [];
    let degraded: string[] = [];
    if (!progress.datasourcesUp) missing.push('datasources');
    else {
      const { usable, down } = await registry.availability();
      if (usable.length === 0 && down.length > 0) missing.push('datasources');
      else degraded = down;
    }
    // Asked each time, not latched at start: query workers that died and cannot be replaced make the server not ready.
    if (!queryPool.isReady) missing.push('query workers');
    missing.push(...(await store.health()));
    return { ready: missing.length === 0, missing, degraded };
  };
}

interface AppParts {
  access: ServerAccess;
  registry: DatasourceRegistry;
  store: OpenedStore['store'];
  /** The catalog (open or not yet), where the audit trail is read. */
  catalog: AuditPort;
  services: Services;
  readiness: () => Promise<Readiness>;
  metrics: SluiceMetrics;
}

/** What /metrics reads at each scrape: counters the parts keep, and the catalog's workspace row (never a scan). */
function scrapeSources(queryPool: WorkerPool, readPool: WorkerPool, readWindows: WindowBatches, { store }: OpenedStore, collector: Collector): ScrapeSources {
  return {
    async workspace() {
      // Any principal's usage carries the workspace's counters; no principal is named '' (see config.ts).
      const { workspace } = await store.usage('');
      return { artifacts: workspace.artifacts, bytes: workspace.physicalBytes, quotaBytes: workspace.quotaBytes };
    },
    pools: () => ({ query: { queued: queryPool.queued, busy: queryPool.busy }, read: { queued: readPool.queued + readWindows.waiting, busy: readPool.busy } }),
    pageCache: () => store.pageCacheCounts(),
    collectionRounds: () => collector.rounds,
  };
}

function buildApp(config: Config, logger: Logger, { access, registry, store, services, readiness, metrics, catalog }: AppParts): OpenAPIHono<AppEnv> {
  return createApp({
    auth: access.auth,
    datasources: registry,
    store,
    queries: services.queries,
    history: services.history,
    cursors: access.cursors,
    bodyLimitBytes: config.bodyLimitBytes,
    sessions: { ttlSeconds: config.artifactTtlS, importMaxBytes: config.importMaxBytes },
    llm: createLlm(config, (call) => metrics.modelCalled(call)),
    semantic: services.semantic,
    visualizations: services.visualizations,
    aiMaxIters: config.aiMaxIters,
    aiDeadlineMs: config.aiDeadlineMs,
    aiToolMaxChars: config.aiToolMaxChars,
    mcpMaxChars: config.mcpMaxChars,
    rateLimit: { perMinute: config.rateLimitPerMinute, shared: services.sharedRateCounts },
    readiness,
    log: logger,
    metrics: { series: metrics, token: config.metricsToken },
    audit: { trail: services.audit?.trail ?? null, port: catalog },
  });
}
