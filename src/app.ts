/**
 * The HTTP application: one OpenAPIHono with the envelope, authentication,
 * the body limit, every route group, the OpenAPI document and the docs.
 * One onError turns anything thrown into the envelope; nothing else writes
 * error bodies, so no path or stack trace can slip out.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { CursorCodec } from './artifacts/cursor.ts';
import type { ArtifactStore } from './artifacts/types.ts';
import { authenticate, type AppEnv } from './auth/middleware.ts';
import { limitRate } from './auth/shared-rate-limit.ts';
import type { SharedRateCounts } from './auth/shared-rate-counts.ts';
import type { Authenticator } from './auth/authenticator.ts';
import type { DatasourceRegistry } from './datasources/registry.ts';
import { SluiceError } from './errors.ts';
import { failureOf } from './routes/common/failure-of.ts';
import { limitBodies } from './routes/common/body-limit.ts';
import type { Logger } from './logger.ts';
import type { QueryService } from './query/query-service.ts';
import { registerArtifactRoutes } from './routes/artifacts/handlers.ts';
import { registerSessionRoutes, type SessionRouteOptions } from './routes/sessions/handlers.ts';
import { registerMaintenanceRoutes } from './routes/maintenance/handlers.ts';
import { registerIdentityRoutes } from './routes/identity/handlers.ts';
import { registerAiRoutes } from './routes/ai/handlers.ts';
import type { Llm } from './ai/llm.ts';
import { registerSemanticRoutes } from './routes/semantic/handlers.ts';
import { registerMcp } from './mcp/mcp-route.ts';
import type { SemanticService } from './semantic/semantic-service.ts';
import type { VisualizationStore } from './semantic/visualization-store.ts';
import { errorBody } from './routes/common/envelope.ts';
import { readJsonBodies } from './routes/common/json-body.ts';
import { dropHeadBodies } from './routes/common/head-answers.ts';
import { settleRequestBodies } from './routes/common/request-body-settle.ts';
import { registerDatasourceRoutes } from './routes/datasources/handlers.ts';
import { registerQueryRoutes } from './routes/queries/handlers.ts';
import type { QueryHistory } from './query/query-history.ts';
import { VERSION } from './version.ts';
import { registerConsole } from './routes/system/console.ts';
import { registerDocs } from './routes/system/docs.ts';
import { registerHealthRoutes, type Readiness } from './routes/system/handlers.ts';
import { API_TAGS } from './routes/common/tags.ts';
import { requestIds } from './routes/common/request-id.ts';
import { measureRequests } from './routes/common/http-metrics.ts';
import type { SluiceMetrics } from './metrics/sluice-metrics.ts';
import { registerMetricsRoute } from './routes/system/metrics.ts';
import type { AuditTrail } from './audit/audit-trail.ts';
import { auditRequests } from './routes/common/audit-requests.ts';
import type { AuditPort } from './catalog/ports/audit-port.ts';
import { registerAdminRoutes } from './routes/admin/handlers.ts';

export interface AppDeps {
  /** Who a request comes from: static tokens, and an identity provider's JWTs when configured. */
  auth: Authenticator;
  datasources: DatasourceRegistry;
  store: ArtifactStore;
  queries: QueryService;
  history: QueryHistory;
  cursors: CursorCodec;
  bodyLimitBytes: number;
  /** New artifacts' lifetime (copies, imports), and the session import's own body limit (a bundle holds whole artifacts). */
  sessions: SessionRouteOptions;
  llm: Llm | null;
  semantic: SemanticService;
  visualizations: VisualizationStore;
  aiMaxIters: number;
  aiDeadlineMs: number;
  aiToolMaxChars: number;
  mcpMaxChars: number;
  /** Requests a principal may make per minute; replicas on one catalog count them together (`shared`, null in one process). */
  rateLimit: { perMinute: number; shared: SharedRateCounts | null };
  /** Whether the server can serve queries now, and what it is waiting for when not. */
  readiness: () => Promise<Readiness>;
  log: Logger;
  /** This server's series, and the token GET /metrics asks for (none when undefined). */
  metrics: { series: SluiceMetrics; token: string | undefined };
  /** Where audited requests are recorded (none: not recorded), and where GET /api/admin/audit reads them. */
  audit: { trail: AuditTrail | null; port: AuditPort };
}

const SESSION_IMPORT_PATH = /^\/api\/sessions\/[^/]+\/import$/;

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
    const failure = failureOf(error, deps.bodyLimitBytes);
    if (failure.code === 'INTERNAL') deps.log.error(`${c.req.method} ${c.req.path} failed:`, failure.cause ?? error);
    if (failure.code === 'RATE_LIMITED' && typeof failure.details?.retryAfterSeconds === 'number') {
      c.header('Retry-After', String(failure.details.retryAfterSeconds));
    }
    return c.json(errorBody(failure), failure.status);
  });
  app.notFound((c) => c.json(errorBody(new SluiceError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}.`)), 404));

  // Outermost: whatever answered, the rest of the request body is read (or the connection closed) before the answer goes.
  app.use('*', settleRequestBodies(deps.bodyLimitBytes));
  // A HEAD answer's body, which the adapter never reads, is let go of, whatever route made it.
  app.use('*', dropHeadBodies());
  // First, so every answer (errors, 404s, streams, MCP) has its id and is counted.
  app.use('*', requestIds(), measureRequests(deps.metrics.series));
  registerHealthRoutes(app, deps.readiness);
  registerDocs(app);
  registerConsole(app);
  // Outside the body limit and authentication, so what they refuse is audited too.
  const audited = deps.audit.trail === null ? [] : [auditRequests(deps.audit.trail, deps.bodyLimitBytes)];
  for (const path of ['/api/*', '/mcp']) for (const audit of audited) app.use(path, audit);
  const tooLarge = (): never => {
    throw new SluiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${deps.bodyLimitBytes} bytes.`);
  };
  const apiBodyLimit = limitBodies(deps.bodyLimitBytes, tooLarge);
  // A session import streams its bundle under its own, larger limit, counted by the import itself.
  app.use('/api/*', (c, next) => (c.req.method === 'POST' && SESSION_IMPORT_PATH.test(c.req.path) ? next() : apiBodyLimit(c, next)));
  app.use('/api/*', authenticate(deps.auth), limitRate(deps.rateLimit.perMinute, deps.rateLimit.shared, 'api'));
  app.use('/mcp', limitBodies(deps.bodyLimitBytes, tooLarge));
  app.use('/mcp', authenticate(deps.auth), limitRate(deps.rateLimit.perMinute, deps.rateLimit.shared, 'mcp'));
  app.openAPIRegistry.registerComponent('securitySchemes', 'token', { type: 'apiKey', in: 'header', name: 'X-Token' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });

  registerQueryRoutes(app, deps.queries, deps.history, deps.datasources);
  registerArtifactRoutes(app, deps.store, deps.cursors);
  registerSessionRoutes(app, deps.store, deps.sessions);
  registerMaintenanceRoutes(app, deps.store);
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
  registerAdminRoutes(app, deps.audit.port);
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
      version: VERSION,
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
