/** Liveness and readiness: /healthz as soon as the server listens, /readyz while it can serve queries. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../auth/middleware.ts';
import { tagged } from '../common/tags.ts';

const Status = z.object({ status: z.literal('ok') }).openapi('HealthStatus');

const ReadinessStatus = z
  .object({
    status: z.enum(['ready', 'not ready']),
    missing: z.array(z.string()).openapi({ description: 'What is not usable now: datasources, query workers, the catalog, artifact storage.' }),
  })
  .openapi('ReadinessStatus');

export interface Readiness {
  ready: boolean;
  missing: string[];
}

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
  summary: 'Readiness: 200 while datasources, a query worker and the artifact store are usable',
  security: [],
  responses: {
    200: { description: 'Ready.', content: { 'application/json': { schema: ReadinessStatus } } },
    503: {
      description: 'Not ready: still starting (the embedded database may be seeding), no query worker can take a task (they died and none could load again), or the catalog or artifact storage cannot be reached; the server keeps serving what it can and recovers by itself.',
      content: { 'application/json': { schema: ReadinessStatus } },
    },
  },
});

export function registerHealth(app: OpenAPIHono<AppEnv>, readiness: () => Promise<Readiness>): void {
  app.openapi(healthz, (c) => c.json({ status: 'ok' as const }, 200));
  app.openapi(readyz, async (c) => {
    const { ready, missing } = await readiness();
    return ready ? c.json({ status: 'ready' as const, missing }, 200) : c.json({ status: 'not ready' as const, missing }, 503);
  });
}
