/** Liveness and readiness: /healthz as soon as the server listens, /readyz once it can serve queries. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../auth/middleware.ts';
import { tagged } from '../common/tags.ts';

const Status = z.object({ status: z.string() }).openapi('HealthStatus');

const healthz = createRoute({
  operationId: 'getLiveness',
  method: 'get',
  path: '/healthz',
  tags: tagged('System'),
  summary: 'Liveness: 200 as soon as the server listens',
  security: [],
  responses: { 200: { description: 'Listening.', content: { 'application/json': { schema: Status } } } },
});

const readyz = createRoute({
  operationId: 'getReadiness',
  method: 'get',
  path: '/readyz',
  tags: tagged('System'),
  summary: 'Readiness: 200 once datasources and the artifact store are usable',
  security: [],
  responses: {
    200: { description: 'Ready.', content: { 'application/json': { schema: Status } } },
    503: { description: 'Still starting (the embedded database may be seeding).', content: { 'application/json': { schema: Status } } },
  },
});

export function registerHealth(app: OpenAPIHono<AppEnv>, isReady: () => boolean): void {
  app.openapi(healthz, (c) => c.json({ status: 'ok' }, 200));
  app.openapi(readyz, (c) => (isReady() ? c.json({ status: 'ready' }, 200) : c.json({ status: 'starting' }, 503)));
}
