/** Handlers of the system operations: liveness and readiness. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../auth/middleware.ts';
import { getLiveness, getReadiness } from './routes.ts';

/** What the server reports about itself: whether it can serve queries now, and what it is waiting for when not. */
export interface Readiness {
  ready: boolean;
  missing: string[];
  /** Datasources whose engine cannot be reached now, while another one can. */
  degraded: string[];
}

export function registerHealthRoutes(app: OpenAPIHono<AppEnv>, readiness: () => Promise<Readiness>): void {
  app.openapi(getLiveness, (c) => c.json({ status: 'ok' as const }, 200));
  app.openapi(getReadiness, async (c) => {
    const { ready, missing, degraded } = await readiness();
    return ready ? c.json({ status: 'ready' as const, missing, degraded }, 200) : c.json({ status: 'not ready' as const, missing, degraded }, 503);
  });
}
