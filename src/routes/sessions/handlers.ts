/** Handlers of /api/sessions (reference copy, retirement) and /api/usage. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { hasRole, type Principal } from '../../auth/principals.ts';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { ArtifactStore } from '../../artifacts/types.ts';
import { ok } from '../common/envelope.ts';
import { copySession, getUsage, retireSession } from './routes.ts';

export function registerSessionRoutes(app: OpenAPIHono<AppEnv>, store: ArtifactStore, ttlSeconds: number): void {
  app.openapi(copySession, async (c) => {
    const principal = requireRole(c, 'reader');
    const result = await store.copySession(principal.id, c.req.valid('param').id, c.req.valid('json').targetSessionId, ttlSeconds);
    return c.json(ok(`Copied ${result.mapping.length} artifact reference(s).`, result), 200);
  });

  app.openapi(retireSession, async (c) => {
    const principal = requireRole(c, 'reader');
    const result = await store.retireSession(principal.id, c.req.valid('param').id);
    return c.json(ok(`Released ${result.releasedArtifacts} artifact(s), ${result.releasedBytes} bytes.`, result), 200);
  });

  app.openapi(getUsage, async (c) => {
    const usage = await callerUsage(store, requireRole(c, 'reader'));
    return c.json(ok(`${usage.principal.artifacts} artifact(s), ${usage.principal.logicalBytes} of ${usage.principal.quotaBytes} bytes.`, usage), 200);
  });
}

/** The caller's artifact usage against its quota; admins also see the workspace's. */
export async function callerUsage(store: ArtifactStore, principal: Principal) {
  const usage = await store.usage(principal.id);
  return hasRole(principal, 'admin') ? usage : { principal: usage.principal };
}
