/**
 * Authentication for /api: the token from X-Token or a Bearer header (a
 * static token or an identity provider's JWT) becomes the request's
 * Principal; roles are checked per route with requireRole.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { SluiceError, type ErrorCode } from '../errors.ts';
import type { Authenticator } from './authenticator.ts';
import { hasRole, type Principal, type Role } from './principals.ts';

/** What a handler learnt that the audit of its request should know and the answer's status does not say. */
export interface AuditNote {
  /** The rows a page or an aggregate answered. */
  rows?: number;
  /** A streamed body's count (routes/common/sent-bytes.ts): the entry waits for it. */
  sent?: Promise<SentBody>;
}

/** What a streamed body sent, known once it ended, was cut off by the client, or failed. */
export interface SentBody {
  bytes: number;
  /** True when the body was sent to its end. */
  whole: boolean;
  /** What failed the stream, when it was a SluiceError with a code; null otherwise. */
  errorCode: ErrorCode | null;
}

/**
 * `requestId` is set for every request (routes/common/request-id.ts); `principal` once authenticated;
 * `audit` on audited routes, for handlers to note what the audit should know (routes/common/audit-requests.ts).
 */
export type AppEnv = { Variables: { principal: Principal; requestId: string; audit: AuditNote } };

export function authenticate(auth: Authenticator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('principal', await auth.identify({ xToken: c.req.header('x-token'), authorization: c.req.header('authorization') }));
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
