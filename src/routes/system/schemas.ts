/** Response schemas of the system routes: liveness and readiness. */
import { z } from '@hono/zod-openapi';

export const HealthStatus = z.object({ status: z.literal('ok') }).openapi('HealthStatus');

export const ReadinessStatus = z
  .object({
    status: z.enum(['ready', 'not ready']),
    missing: z.array(z.string()).openapi({ description: 'What is not usable now: datasources (none can be reached, or they are still starting), query workers, the catalog, artifact storage.' }),
    degraded: z
      .array(z.string())
      .openapi({ description: 'Datasources whose engine cannot be reached now while another one can: the replica stays ready and their queries answer DATASOURCE_UNAVAILABLE.' }),
  })
  .openapi('ReadinessStatus');
