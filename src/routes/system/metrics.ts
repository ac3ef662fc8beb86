/**
 * GET /metrics: the server's series for Prometheus. Open unless
 * SLUICE_METRICS_TOKEN is set; then only that token opens it (in X-Token or
 * Authorization: Bearer), compared by digest like the API's tokens, and
 * anything else is 401 in the usual envelope.
 */
import { createHash } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../auth/middleware.ts';
import { SluiceError } from '../../errors.ts';
import type { SluiceMetrics } from '../../metrics/sluice-metrics.ts';
import { getMetrics } from './routes.ts';

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export function registerMetricsRoute(app: OpenAPIHono<AppEnv>, metrics: SluiceMetrics, token: string | undefined): void {
  const wanted = token === undefined ? null : digest(token);
  app.openapi(getMetrics, async (c) => {
    if (wanted !== null) {
      const sent = c.req.header('x-token') ?? c.req.header('authorization')?.replace(/^Bearer\s+/i, '');
      if (sent === undefined || digest(sent.trim()) !== wanted) {
        throw new SluiceError('UNAUTHORIZED', 'GET /metrics needs the metrics token (SLUICE_METRICS_TOKEN) in the X-Token header or Authorization: Bearer <token>.');
      }
    }
    return c.text(await metrics.text(), 200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
  });
}
