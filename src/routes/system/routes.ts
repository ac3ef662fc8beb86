/**
 * Route definitions of the system operations: /healthz as soon as the server
 * listens, /readyz while it can serve queries, /metrics for Prometheus.
 * None needs a token, but /metrics does when SLUICE_METRICS_TOKEN is set. The
 * console and the docs explorer (console.ts, docs.ts) are pages, not
 * operations of the OpenAPI document, and are not defined here.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { ErrorEnvelope, jsonResponse } from '../common/envelope.ts';
import { tagged } from '../common/tags.ts';
import { HealthStatus, ReadinessStatus } from './schemas.ts';

export const getLiveness = createRoute({
  operationId: 'getLiveness',
  method: 'get',
  path: '/healthz',
  tags: tagged('System'),
  summary: 'Liveness: 200 as soon as the server listens',
  security: [],
  responses: { 200: jsonResponse(HealthStatus, 'Listening.') },
});

export const getReadiness = createRoute({
  operationId: 'getReadiness',
  method: 'get',
  path: '/readyz',
  tags: tagged('System'),
  summary: 'Readiness: 200 while a datasource, a query worker and the artifact store are usable',
  security: [],
  responses: {
    200: jsonResponse(ReadinessStatus, 'Ready; `degraded` lists datasources that cannot be reached now.'),
    503: jsonResponse(
      ReadinessStatus,
      'Not ready: still starting (the embedded database may be seeding), no datasource can be reached, no query worker can take a task (they died and none could load again), or the catalog or artifact storage cannot be reached; the server keeps serving what it can and recovers by itself.',
    ),
  },
});

export const getMetrics = createRoute({
  operationId: 'getMetrics',
  method: 'get',
  path: '/metrics',
  tags: tagged('System'),
  summary: 'Metrics for Prometheus, in its text exposition format',
  description:
    'Requests by route template, method and status (count and duration), queries by datasource and final state, export rows and bytes, artifacts and their bytes, worker queues, the page cache, collection rounds, model calls and tokens, and the runtime\u2019s process and event-loop series. Labels never hold ids, SQL, tokens or principals. Needs no token unless SLUICE_METRICS_TOKEN is set; then that token, in X-Token or Authorization: Bearer (API tokens are not accepted here).',
  // `{}`: no token needed, unless the server sets SLUICE_METRICS_TOKEN.
  security: [{}, { token: [] }, { bearer: [] }],
  responses: {
    200: { description: 'The series, in the Prometheus text format (version 0.0.4).', content: { 'text/plain': { schema: z.string() } } },
    401: { description: '`UNAUTHORIZED`: SLUICE_METRICS_TOKEN is set and the request did not send it.', content: { 'application/json': { schema: ErrorEnvelope } } },
    500: { description: '`INTERNAL`: An unexpected server error; nothing about it is leaked.', content: { 'application/json': { schema: ErrorEnvelope } } },
  },
});
