/**
 * Per-principal request rate limit: a token bucket per principal, refilled
 * continuously. Over the limit a request is refused with RATE_LIMITED and a
 * Retry-After saying when the next one will be accepted. In memory: the
 * single-process default. Replicas on one catalog count together instead
 * (shared-rate-limit.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { SluiceError } from '../errors.ts';
import type { AppEnv } from './middleware.ts';

interface Bucket {
  tokens: number;
  updated: number;
}

export function rateLimit(perMinute: number, now: () => number = Date.now): MiddlewareHandler<AppEnv> {
  const buckets = new Map<string, Bucket>();
  const refillPerMs = perMinute / 60_000;
  return async (c, next) => {
    const id = c.get('principal').id;
    const t = now();
    const bucket = buckets.get(id) ?? { tokens: perMinute, updated: t };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (t - bucket.updated) * refillPerMs);
    bucket.updated = t;
    buckets.set(id, bucket);
    if (bucket.tokens < 1) refuse(c, id, perMinute, Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000)));
    bucket.tokens -= 1;
    await next();
  };
}

/** The one refusal of both limits: RATE_LIMITED with a Retry-After in seconds. */
export function refuse(c: Context<AppEnv>, id: string, perMinute: number, retryAfter: number): never {
  c.header('Retry-After', String(retryAfter));
  throw new SluiceError('RATE_LIMITED', `Too many requests for ${id}: the limit is ${perMinute} a minute; retry in ${retryAfter} s.`, { retryAfterSeconds: retryAfter });
}
