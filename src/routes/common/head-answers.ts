/**
 * HEAD answers carry no body. Hono answers a HEAD with the GET route's
 * handler, and the Node adapter then sends the head alone and never reads
 * nor cancels the body the handler made: a download's file and its lease on
 * the stored part, or a session export's tar and the reads behind it, were
 * left waiting for a reader that never comes. Here the body is cancelled,
 * which is how every streamed answer lets go of what it holds, and the same
 * status and headers go out without it.
 */
import type { MiddlewareHandler } from 'hono';

export function dropHeadBodies(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.req.method !== 'HEAD' || c.res.body === null) return;
    const { status, headers } = c.res;
    await c.res.body.cancel().catch(() => undefined);
    c.res = new Response(null, { status, headers });
  };
}
