/**
 * The HTTP application: one OpenAPIHono with the envelope, authentication,
 * the body limit, every route group, the OpenAPI document and the docs.
 * One onError turns anything thrown into the envelope; nothing else writes
 * error bodies, so no path or stack trace can slip out.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { CursorCodec } from './artifacts/cursor.ts';
import type { ArtifactStore } from './artifacts/types.ts';
import { authenticate, type AppEnv } from './auth/middleware.ts';
import { limitRate } from './auth/shared-rate-limit.ts';
import type { SharedRateCounts } from './auth/shared-rate-counts.ts';
import type { Authenticator } from './auth/authenticator.ts';
import type { DatasourceRegistry } from './datasources/registry.ts';
import { SluiceError, toSluiceError } from './errors.ts';
import type { Logger } from './logger.ts';
import type { QueryService } from './query/query-service.ts';
import { registerArtifactRoutes } from './routes/artifacts/handlers.ts';
import { registerSessionRoutes } from './routes/sessions/handlers.ts';
import { registerIdentityRoutes } from './routes/identity/handlers.ts';
import { registerAiRoutes } from './routes/ai/handlers.ts';
import type { Llm } from './ai/llm.ts';
import { registerSemanticRoutes } from './routes/semantic/handlers.ts';
import { registerMcp } from './mcp/mcp-route.ts';
import type { SemanticService } from './semantic/semantic-service.ts';
import type { VisualizationStore } from './semantic/visualization-store.ts';
import { errorBody } from './routes/common/envelope.ts';
import { readJsonBodies } from './routes/common/json-body.ts';
import { registerDatasourceRoutes } from './routes/datasources/handlers.ts';
import { registerQueryRoutes } from './routes/queries/handlers.ts';
import { registerConsole } from './routes/system/console.ts';
import { registerDocs } from './routes/system/docs.ts';
import { registerHealthRoutes, type Readiness } from './routes/system/handlers.ts';
import { API_TAGS } from './routes/common/tags.ts';
import { requestIds } from './routes/common/request-id.ts';
import { measureRequests } from './routes/common/http-metrics.ts';
import type { SluiceMetrics } from './metrics/sluice-metrics.ts';
import { registerMetricsRoute } from './routes/system/metrics.ts';

export interface AppDeps {
  /** Who a request comes from: static tokens, and an identity provider's JWTs when configured. */
  auth: Authenticator;
  datasources: DatasourceRegistry;
  store: ArtifactStore;
  queries: QueryService;
  cursors: CursorCodec;
  bodyLimitBytes: number;
  artifactTtlS: number;
  llm: Llm | null;
  semantic: SemanticService;
  visualizations: VisualizationStore;
  aiMaxIters: number;
  aiDeadlineMs: number;
  aiToolMaxChars: number;
  mcpMaxChars: number;
  rateLimitPerMinute: number;
  /** Replicas on one catalog count requests together; null in one process. */
  sharedRateCounts?: SharedRateCounts | null;
  /** Whether the server can serve queries now, and what it is waiting for when not. */
  readiness: () => Promise<Readiness>;
  version: string;
  log: Logger;
  /** This server's series, and the token GET /metrics asks for (none when undefined). */
  metrics: { series: SluiceMetrics; token: string | undefined };
}

function validationError(issues: { path: PropertyKey[]; message: string }[]): SluiceError {
  const first = issues[0];
  const where = first && first.path.length > 0 ? first.path.map(String).join('.') : 'body';
  return new SluiceError('VALIDATION_ERROR', `Invalid request: ${where}: ${first?.message ?? 'invalid value'}.`, {
    issues: issues.slice(0, 20).map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
  });
}

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
  });
  // Every JSON route reads its body as JSON whatever the Content-Type says (curl -d sends a form type).
  readJsonBodies(app);

  app.onError((error, c) => {
    let failure: SluiceError;
    if (error instanceof HTTPException && error.status === 413) failure = new SluiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${deps.bodyLimitBytes} bytes.`);
    else if (error instanceof HTTPException && error.status < 500) failure = new SluiceError('VALIDATION_ERROR', 'The request body could not be read: send one JSON object.');
    else failure = toSluiceError(error);
    if (failure.code === 'INTERNAL') deps.log.error(`${c.req.method} ${c.req.path} failed:`, failure.cause ?? error);
    if (failure.code === 'RATE_LIMITED' && typeof failure.details?.retryAfterSeconds === 'number') {
      c.header('Retry-After', String(failure.details.retryAfterSeconds));
    }
    return c.json(errorBody(failure), failure.status);
  });
  app.notFound((c) => c.json(errorBody(new SluiceError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}.`)), 404));

  // First, so every answer (errors, 404s, streams, MCP) has its id and is counted.
  app.use('*', requestIds(), measureRequests(deps.metrics.series));
  registerHealthRoutes(app, deps.readiness);
  registerDocs(app);
  registerConsole(app);
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: deps.bodyLimitBytes,
      onError: () => {
        throw new SluiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${deps.bodyLimitBytes} bytes.`);
      },
    }),
  );
  app.use('/api/*', authenticate(deps.auth), limitRate(deps.rateLimitPerMinute, deps.sharedRateCounts ?? null, 'api'));
  app.use('/mcp', bodyLimit({ maxSize: deps.bodyLimitBytes, onError: () => { throw new SluiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${deps.bodyLimitBytes} bytes.`); } }));
  app.use('/mcp', authenticate(deps.auth), limitRate(deps.rateLimitPerMinute, deps.sharedRateCounts ?? null, 'mcp'));
  app.openAPIRegistry.registerComponent('securitySchemes', 'token', { type: 'apiKey', in: 'header', name: 'X-Token' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });

  registerQueryRoutes(app, deps.queries);
  registerArtifactRoutes(app, deps.store, deps.cursors);
  registerSessionRoutes(app, deps.store, deps.artifactTtlS);
  registerIdentityRoutes(app, deps.store);
  registerSemanticRoutes(app, deps.semantic, deps.visualizations);
  registerAiRoutes(app, deps.llm, {
    registry: deps.datasources,
    queries: deps.queries,
    store: deps.store,
    cursors: deps.cursors,
    maxIters: deps.aiMaxIters,
    deadlineMs: deps.aiDeadlineMs,
    semantic: deps.semantic,
    visualizations: deps.visualizations,
    toolMaxChars: deps.aiToolMaxChars,
    log: deps.log,
  });
  registerDatasourceRoutes(app, deps.datasources);
  registerMcp(app, {
    registry: deps.datasources,
    queries: deps.queries,
    store: deps.store,
    cursors: deps.cursors,
    semantic: deps.semantic,
    visualizations: deps.visualizations,
    maxChars: deps.mcpMaxChars,
    deadlineMs: deps.aiDeadlineMs,
    log: deps.log,
  });
  registerMetricsRoute(app, deps.metrics.series, deps.metrics.token);

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Sluice',
      version: deps.version,
      description:
        'Read-only SQL for people and AI agents: every query answers with a bounded preview, exact completeness metadata and an opaque handle to the complete result (a Parquet artifact) that can be paged, projected, filtered and sorted. Every /api route needs X-Token (or Authorization: Bearer), or with an identity provider configured its JWT in Authorization: Bearer. Request bodies are JSON, read as JSON whatever Content-Type they come with (so curl -d works); a body that is not JSON is VALIDATION_ERROR.',
    },
    // Relative: the document is right for whatever host and port serve it.
    servers: [{ url: '/', description: 'The Sluice serving this document' }],
    security: [{ token: [] }, { bearer: [] }],
    tags: [...API_TAGS],
  });
  return app;
}
