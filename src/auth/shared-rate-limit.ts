/**
 * The rate limit of replicas on one catalog: the same limit and refusal as
 * rate-limit.ts, counted across replicas (shared-rate-counts.ts). Each
 * route family keeps its own budget, as the in-memory limiter does, so a
 * principal's /mcp calls do not spend its /api ones.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './middleware.ts';
import { rateLimit, refuse } from './rate-limit.ts';
import type { SharedRateCounts } from './shared-rate-counts.ts';

export function sharedRateLimit(perMinute: number, counts: SharedRateCounts, scope: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = c.get('principal').id;
    const decision = await counts.take(scope, id, perMinute);
    if (!decision.allowed) refuse(c, id, perMinute, decision.retryAfterSeconds);
    await next();
  };
}

/** In memory without shared counts (one process), else across replicas. */
export function limitRate(perMinute: number, shared: SharedRateCounts | null, scope: string): MiddlewareHandler<AppEnv> {
  return shared === null ? rateLimit(perMinute) : sharedRateLimit(perMinute, shared, scope);
}
