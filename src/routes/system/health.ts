/** Liveness and readiness: /healthz as soon as the server listens, /readyz once it can serve queries. */
import type { Hono } from 'hono';

export function registerHealth(app: Hono<never>, isReady: () => boolean): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => (isReady() ? c.json({ status: 'ready' }) : c.json({ status: 'starting' }, 503)));
}
