/**
 * Counts and times every answer, by route template (never the URL), method
 * and status, errors and 404s included. A stream is timed to the start of
 * its answer: its body may run for minutes after.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../auth/middleware.ts';
import type { SluiceMetrics } from '../../metrics/sluice-metrics.ts';
import { routeTemplateOf } from './route-template.ts';

export function measureRequests(metrics: SluiceMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    metrics.requestAnswered(routeTemplateOf(c), c.req.method, c.res.status, (performance.now() - started) / 1000);
  };
}
