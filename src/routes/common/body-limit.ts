/**
 * The request body limit, decided from the request's head where it can be:
 * a body of a stated length (Content-Length, no Transfer-Encoding) over the
 * limit is refused before a byte of it is read, one within it passes, and a
 * request that states neither carries no body when it came over HTTP/1 to
 * Node's server. Every other body (chunked, or one HTTP/2 sends with no
 * length, as Deno's server accepts) is counted as it is read, by Hono's own
 * middleware. Hono's
 * middleware alone asks for the request's body stream on every request,
 * and the Node adapter then builds a whole web Request around the socket,
 * which the route's own read of the JSON body would have skipped
 * (bench/runs/2026-12-02-first-reads.md).
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

export function limitBodies(maxBytes: number, onError: () => never): MiddlewareHandler {
  const counted = bodyLimit({ maxSize: maxBytes, onError });
  return async (c, next) => {
    const method = c.req.method;
    // The adapter gives a GET or HEAD no body whatever the head says, as Hono's middleware then finds.
    if (method === 'GET' || method === 'HEAD') return next();
    if (c.req.header('transfer-encoding') === undefined) {
      const length = c.req.header('content-length');
      if (length === undefined && overNodeHttp1(c.env)) return next();
      if (length !== undefined && /^\d+$/.test(length)) return Number(length) > maxBytes ? onError() : next();
    }
    return counted(c, next);
  };
}

/** Whether the request came to Node's HTTP/1 server (the Node adapter puts its request in the context's env). */
function overNodeHttp1(env: unknown): boolean {
  return (env as { incoming?: { httpVersionMajor?: unknown } } | undefined)?.incoming?.httpVersionMajor === 1;
}
