/**
 * The request body limit (routes/common/body-limit.ts): a stated length
 * over the limit is refused unread, one within it passes, a request to
 * Node's HTTP/1 server that states no length and no chunked encoding passes
 * as bodiless, and any other body (chunked, or of no stated length on
 * another server) is counted as it is read, refused once past the limit. When
 * the head decides, the request's body stream is never asked for: with the
 * Node adapter that builds a whole web Request for every API request.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { limitBodies } from '../../src/routes/common/body-limit.ts';

const LIMIT = 100;

/** A request that counts how often its body stream is asked for. */
class CountingRequest extends Request {
  static asked = 0;
  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    CountingRequest.asked += 1;
    return super.body;
  }
}

function app(): Hono {
  const hono = new Hono();
  hono.use(
    '*',
    limitBodies(LIMIT, () => {
      throw new Error('too large');
    }),
  );
  hono.onError((error, c) => c.text(error.message, 413));
  hono.all('/echo', async (c) => c.text(`read ${(await c.req.text()).length}`));
  return hono;
}

function chunked(bytes: number): ReadableStream<Uint8Array<ArrayBuffer>> {
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left === 0) return controller.close();
      const size = Math.min(30, left);
      left -= size;
      controller.enqueue(new Uint8Array(size).fill(120));
    },
  });
}

/** What the Node adapter hands the app of a request that came over HTTP/1.1. */
const NODE_HTTP1 = { incoming: { httpVersionMajor: 1 } };

async function send(init: RequestInit, env: object = NODE_HTTP1): Promise<{ status: number; text: string; asked: number }> {
  CountingRequest.asked = 0;
  const answer = await app().fetch(new CountingRequest('http://sluice.test/echo', init), env);
  return { status: answer.status, text: await answer.text(), asked: CountingRequest.asked };
}

describe('the request body limit', () => {
  it('lets a body of a stated length within the limit through without asking for its stream', async () => {
    const sent = await send({ method: 'POST', body: 'x'.repeat(LIMIT), headers: { 'content-length': String(LIMIT) } });
    expect(sent).toEqual({ status: 200, text: `read ${LIMIT}`, asked: 0 });
  });

  it('refuses a stated length over the limit before reading a byte', async () => {
    const sent = await send({ method: 'POST', body: 'x'.repeat(LIMIT + 1), headers: { 'content-length': String(LIMIT + 1) } });
    expect(sent).toEqual({ status: 413, text: 'too large', asked: 0 });
  });

  it("lets a request to Node's HTTP/1 server with neither a length nor a chunked body through, and a GET whatever its head says", async () => {
    expect(await send({ method: 'POST' })).toEqual({ status: 200, text: 'read 0', asked: 0 });
    expect(await send({ method: 'GET', headers: { 'content-length': String(LIMIT * 10) } })).toEqual({ status: 200, text: 'read 0', asked: 0 });
  });

  it("counts a body of no stated length elsewhere (HTTP/2 on Deno's server sends one): through within the limit, refused past it", async () => {
    const withoutLength = (bytes: number) => ({ method: 'POST', body: chunked(bytes), duplex: 'half' }) as RequestInit;
    const within = await send(withoutLength(LIMIT), {});
    expect([within.status, within.text]).toEqual([200, `read ${LIMIT}`]);
    const over = await send(withoutLength(LIMIT * 10), {});
    expect([over.status, over.text]).toEqual([413, 'too large']);
  });

  it('counts a chunked body as it is read: through within the limit, refused past it', async () => {
    const within = await send({ method: 'POST', body: chunked(LIMIT), headers: { 'transfer-encoding': 'chunked' }, duplex: 'half' } as RequestInit);
    expect([within.status, within.text]).toEqual([200, `read ${LIMIT}`]);
    const over = await send({ method: 'POST', body: chunked(LIMIT + 1), headers: { 'transfer-encoding': 'chunked' }, duplex: 'half' } as RequestInit);
    expect([over.status, over.text]).toEqual([413, 'too large']);
  });
});
