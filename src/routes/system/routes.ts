/**
 * Route definitions of the system operations: /healthz as soon as the server
 * listens, /readyz while it can serve queries. Neither needs a token. The
 * console and the docs explorer (console.ts, docs.ts) are pages, not
 * operations of the OpenAPI document, and are not defined here.
 */
import { createRoute } from '@hono/zod-openapi';
import { jsonResponse } from '../common/envelope.ts';
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
