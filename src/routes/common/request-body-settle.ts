/**
 * Every request body is settled before its answer goes out, so a kept-alive
 * connection stays usable. A route that needs no body (a cancel) answers
 * without reading it; left so, the rest of a body still on its way was
 * drained by the Node adapter for at most half a second and the socket then
 * destroyed, after an answer that had promised to keep the connection open:
 * a client that reused it in that window saw its next request die unanswered
 * ("other side closed"). So the rest is read here (at most the body limit,
 * which a body with a Content-Length already passed) and thrown away. An
 * answer the rest of whose body will not be read (413, or a body that cannot
 * be read to its end) says `Connection: close`, so no client reuses a
 * connection the server is about to close.
 */
import type { MiddlewareHandler } from 'hono';

async function readToEnd(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<boolean> {
  const reader = body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return false;
      }
    }
  } catch {
    return false;
  }
}

/** Whether the request's head announces a body (HTTP/1.1: a non-zero Content-Length, or a Transfer-Encoding). */
function mayCarryBody(contentLength: string | undefined, transferEncoding: string | undefined): boolean {
  return transferEncoding !== undefined || (contentLength !== undefined && contentLength.trim() !== '0');
}

export function settleRequestBodies(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    // The body as it came off the wire: later middleware may put a buffered copy in c.req.raw.
    const sent = c.req.raw;
    await next();
    if (c.res.status === 413) {
      c.header('Connection', 'close');
      return;
    }
    // Most requests carry no body; asking the adapter's request for one would build a whole Request for each of them.
    if (!mayCarryBody(c.req.header('content-length'), c.req.header('transfer-encoding'))) return;
    // Read by the route: nothing left over. Asked first: the adapter answers it from its own request, where asking
    // for the body stream would build a whole web Request around the socket.
    if (sent.bodyUsed) return;
    const body = sent.body;
    // Being read by the route, or none sent: nothing left over.
    if (body === null || body.locked) return;
    if (!(await readToEnd(body, maxBytes))) c.header('Connection', 'close');
  };
}
