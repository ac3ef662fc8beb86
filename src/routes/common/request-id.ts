/**
 * X-Request-Id: the caller's id when it is sane (1-128 characters of
 * letters, digits and `._:-`), a random one otherwise; anything else the
 * caller sent is dropped, never echoed (it could split a header or a log
 * line). The id is on every answer, in the Hono context (`requestId`) for
 * handlers, and in the request scope for the operator's log lines.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../auth/middleware.ts';
import { inRequest } from '../../runtime/request-scope.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's id if it is sane, else a new random one. */
export function requestIdOf(sent: string | undefined): string {
  return sent !== undefined && SANE.test(sent) ? sent : crypto.randomUUID();
}

export function requestIds(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    c.set('requestId', id);
    // Before the handler: every answer the context builds (c.json, c.body, errors) takes it from there. Set on an
    // answer already built, a header makes Hono wrap that answer's body in a stream again, for every request.
    c.header(REQUEST_ID_HEADER, id);
    await inRequest(id, next);
    // An answer a handler built itself (MCP's) took none of the context's headers: it gets the id now.
    if (!c.res.headers.has(REQUEST_ID_HEADER)) c.header(REQUEST_ID_HEADER, id);
  };
}
