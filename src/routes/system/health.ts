/** Liveness and readiness: /healthz as soon as the server listens, /readyz once it can serve queries. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../auth/middleware.ts';

const Status = z.object({ status: z.string() }).openapi('HealthStatus');

const healthz = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['System'],
  summary: 'Liveness: 200 as soon as the server listens',
  security: [],
  responses: { 200: { description: 'Listening.', content: { 'application/json': { schema: Status } } } },
});

const readyz = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['System'],
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
