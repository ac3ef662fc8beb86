/** Handler of /api/me: the caller as the server sees it, and its usage as /api/usage answers it. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { ArtifactStore } from '../../artifacts/types.ts';
import { ok } from '../common/envelope.ts';
import { callerUsage } from '../sessions/handlers.ts';
import { getMe } from './routes.ts';

export function registerIdentityRoutes(app: OpenAPIHono<AppEnv>, store: ArtifactStore): void {
  app.openapi(getMe, async (c) => {
    const principal = requireRole(c, 'reader');
    const usage = await callerUsage(store, principal);
    const data = { principal: principal.id, roles: principal.roles, datasources: principal.datasources, auth: principal.auth, usage };
    return c.json(ok(`${principal.id} (${principal.role}), signed in with ${principal.auth === 'oidc' ? 'an identity provider\u2019s JWT' : 'a token'}.`, data), 200);
  });
}
