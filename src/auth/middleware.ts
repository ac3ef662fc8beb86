/**
 * Authentication for /api: the token from X-Token or a Bearer header becomes
 * the request's Principal; roles are checked per route with requireRole.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { SluiceError } from '../errors.ts';
import { hasRole, type Principal, type Role, type TokenDirectory } from './principals.ts';

/** `requestId` is set for every request (routes/common/request-id.ts); `principal` once authenticated. */
export type AppEnv = { Variables: { principal: Principal; requestId: string } };

export function authenticate(tokens: TokenDirectory): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('x-token') ?? c.req.header('authorization')?.replace(/^Bearer\s+/i, '');
    const principal = header ? tokens.lookup(header.trim()) : undefined;
    if (principal === undefined) {
      throw new SluiceError('UNAUTHORIZED', 'Send a valid token in the X-Token header (or Authorization: Bearer <token>).');
    }
    c.set('principal', principal);
    await next();
  };
}

export function requireRole(c: Context<AppEnv>, role: Role): Principal {
  const principal = c.get('principal');
  if (!hasRole(principal, role)) {
    throw new SluiceError('FORBIDDEN', `This route needs the ${role} role; this token has ${principal.role}.`);
  }
  return principal;
}
