/**
 * Builds and starts a whole Sluice server from a Config: secrets, tokens,
 * datasources (starting the embedded one when no DATABASE_URL is given), the
 * worker pools, the artifact store, the app, the listener. Listening comes
 * first, so /healthz answers at once; /readyz answers 200 while every
 * datasource is up, a query worker can take a task and the store is usable.
 * Work that grows with stored data runs only in the background after.
 */
import { resolve } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from './app.ts';
import { CursorCodec } from './artifacts/cursor.ts';
import { openStore } from './artifacts/store/open-store.ts';
import type { AppEnv } from './auth/middleware.ts';
import { TokenDirectory } from './auth/principals.ts';
import { loadSecrets } from './auth/secrets.ts';
import type { Config } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './datasources/postgres/embedded/start-embedded.ts';
import { DatasourceRegistry, type DatasourceSpec } from './datasources/registry.ts';
import { QueryService } from './query/query-service.ts';
import { WorkerPool } from './worker/worker-pool.ts';
import type { QueryWorkerData } from './worker/protocol.ts';
import { serve } from './runtime/serve.ts';
import { createLlm } from './ai/llm.ts';
import { SemanticCatalog } from './semantic/catalog.ts';
import { loadModels } from './semantic/load-models.ts';
import { SemanticService } from './semantic/semantic-service.ts';
import { catalogVisualizations, localVisualizations } from './semantic/visualization-store.ts';
import { SharedRateCounts } from './auth/shared-rate-counts.ts';
import { Collector } from './artifacts/collector.ts';
import { VERSION } from './version.ts';
import { consoleLogger, type Logger } from './logger.ts';

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
}

export async function startSluice(config: Config, logger: Logger = consoleLogger, seams: StartSeams = {}): Promise<Sluice> {
  const log = (line: string) => logger.info(line);
  // First, before anything starts: an invalid model file stops start-up with a message naming it.
  const explores = loadModels(resolve(config.modelsDir));
  const dataDir = resolve(config.dataDir);
  const { secrets } = loadSecrets(dataDir);
  // Replicas on one catalog share the cursor key and the generated admin token through it: until it
  // answers, no generated token is accepted (none of this replica's own could be right for the others).
  const shareSecrets = config.catalogUrl !== undefined;
  let generatedToken = config.tokens === undefined && !shareSecrets ? secrets.adminToken : null;
  const tokens = new TokenDirectory(config.tokens ?? (shareSecrets ? [] : [{ token: secrets.adminToken, principal: 'admin', roles: ['admin'] }]));
  const cursors = new CursorCodec(secrets.cursorKey);

  const specs: DatasourceSpec[] = config.datasources.map((d) => ({ id: d.id, url: d.url, description: d.description }));
  if (config.databaseUrl !== undefined) specs.unshift({ id: 'default', url: config.databaseUrl });
  const embeddedWanted = config.databaseUrl === undefined && !specs.some((s) => s.id === 'default');
  const registry = new DatasourceRegistry(specs, config.queryWorkers, logger);
  if (embeddedWanted) registry.markStarting('default', 'postgres');

  // Exports run PostgreSQL, the stream and DuckDB's conversion side by side: one DuckDB
  // thread each leaves the other core to the database (measured faster on 2 cores).
  const exportWorker: QueryWorkerData = { duckdbThreads: 1, duckdbMemoryLimit: '256MB' };
  const readWorker: QueryWorkerData = { duckdbThreads: 2, duckdbMemoryLimit: '512MB' };
  const queryPool = new WorkerPool(seams.queryWorker ?? QUERY_WORKER, config.queryWorkers, exportWorker, 1, logger);
  // The read pool's first worker starts once the server is ready, in the background: start-up
  // does not wait for it, and the first read does not pay for loading it.
  const readPool = new WorkerPool(QUERY_WORKER, config.readWorkers, readWorker, 0, logger);
  const { store, catalog, replica } = openStore(
    { ...config, dataDir },
    {
      log: logger,
      workers: {
        read: async (sql, params) => (await readPool.run({ type: 'read', sql, params }).result).rows,
        writeFile: async (task) => void (await readPool.run({ type: 'write-file', ...task }).result),
      },
    },
  );
  // With a shared catalog, running queries are published there so any replica can poll and cancel them.
  const queries = new QueryService(config, registry, store, queryPool, logger, shareSecrets ? { catalog: catalog.catalog, replica } : undefined);
  const collector = new Collector(store, log);
  const semantic = new SemanticService(new SemanticCatalog(explores), queries, (id) => registry.dialectOf(id));
  // With a shared catalog, saved charts and request counts live there too, so every replica sees the same.
  const visualizations = shareSecrets ? catalogVisualizations(catalog.catalog) : localVisualizations(dataDir);
  const sharedRateCounts = shareSecrets ? new SharedRateCounts(catalog.catalog, logger) : null;
  sharedRateCounts?.start();
  let datasourcesUp = false;
  const app = createApp({
    tokens,
    datasources: registry,
    store,
    queries,
    cursors,
    bodyLimitBytes: config.bodyLimitBytes,
    artifactTtlS: config.artifactTtlS,
    llm: createLlm(config),
    semantic,
    visualizations,
    aiMaxIters: config.aiMaxIters,
    aiDeadlineMs: config.aiDeadlineMs,
    aiToolMaxChars: config.aiToolMaxChars,
    mcpMaxChars: config.mcpMaxChars,
    rateLimitPerMinute: config.rateLimitPerMinute,
    sharedRateCounts,
    readiness: async () => {
      const missing: string[] = [];
      if (!datasourcesUp) missing.push('datasources');
      // Asked each time, not latched at start: query workers that died and cannot be replaced make the server not ready.
      if (!queryPool.isReady) missing.push('query workers');
      missing.push(...(await store.health()));
      return { ready: missing.length === 0, missing };
    },
    version: VERSION,
    log: logger,
  });
  const server = await serve(app.fetch, config.port, config.host);
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;

  let embedded: EmbeddedPostgres | null = null;
  let stopping = false;
  const startup = (async () => {
    if (embeddedWanted) {
      log('Starting the embedded PostgreSQL (no DATABASE_URL set)...');
      embedded = await startEmbeddedPostgres({ dataDir: resolve(dataDir, 'pglite'), log });
      registry.add({ id: 'default', url: embedded.url, embedded: true });
    }
    await registry.logStartupWarnings(log);
    datasourcesUp = true;
    // Ready means a query can run now: an export worker has loaded (DuckDB included) and takes
    // tasks, and the artifact catalog has opened (a catalog that is down keeps this waiting, and
    // /readyz says so, while the server serves what it can). A worker that never loads, or a
    // catalog that never opens, keeps this waiting until stop() closes the pool or the store,
    // which ends the wait.
    await queryPool.ready();
    await catalog.opened;
    if (shareSecrets) {
      cursors.useKey(await catalog.catalog.sharedSecret('cursor-key', () => secrets.cursorKey));
      if (config.tokens === undefined) {
        generatedToken = await catalog.catalog.sharedSecret('admin-token', () => secrets.adminToken);
        tokens.add({ token: generatedToken, principal: 'admin', roles: ['admin'] });
      }
    }
    // A stop() that came during the steps above has already closed the pools and the store these start on.
    if (stopping) return;
    readPool.prestart();
    // Leftovers of exports interrupted by a crash: removed now that the server is serving.
    void store.sweepScratch().catch((e: unknown) => log(`Could not clean staged files: ${(e as Error).message}`));
    collector.start();
  })();
  // A start-up that stop() cut short neither failed nor made the server ready: whoever waits for
  // readiness is told neither (npm start would exit with an error, or announce readiness, in the
  // middle of a clean shutdown).
  const readyPromise = new Promise<void>((resolve, reject) =>
    startup.then(
      () => {
        if (!stopping) resolve();
      },
      (error: unknown) => {
        if (!stopping) reject(error);
      },
    ),
  );

  return {
    url,
    port: server.port,
    app,
    get generatedToken() {
      return generatedToken;
    },
    ready: readyPromise,
    datasourceUrl: (id) => registry.urlOf(id),
    queriesSubmitted: () => queries.submitted,
    async stop() {
      stopping = true;
      collector.stop();
      // Running statements are cancelled on the database before the workers that run them stop.
      await queries.cancelAll();
      await server.close();
      await sharedRateCounts?.stop();
      await Promise.allSettled([queryPool.close(), readPool.close()]);
      await registry.close();
      // Nothing runs on the store any more, and closing it ends start-up's wait for the catalog.
      await store.close();
      // Start-up has ended by now (closing the query pool and the catalog ended its waits), so the
      // embedded database it may have started is known and stopped below.
      await startup.catch(() => undefined);
      await (embedded as EmbeddedPostgres | null)?.stop();
      await visualizations.close();
    },
  };
}
