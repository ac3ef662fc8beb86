/** Response schemas of the system routes: liveness and readiness. */
import { z } from '@hono/zod-openapi';

export const HealthStatus = z.object({ status: z.literal('ok') }).openapi('HealthStatus');

export const ReadinessStatus = z
  .object({
    status: z.enum(['ready', 'not ready']),
    missing: z.array(z.string()).openapi({ description: 'What is not usable now: datasources, query workers, the catalog, artifact storage.' }),
  })
  .openapi('ReadinessStatus');
