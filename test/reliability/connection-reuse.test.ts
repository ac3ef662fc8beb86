/**
 * A kept-alive connection is never closed under a client that may reuse it.
 *
 * An answer given before the request body has all arrived (a route that
 * reads no body, such as a cancel; a body over the limit) used to leave the
 * rest of the body to @hono/node-server, which drains it for at most 500 ms
 * and then destroys the socket, after a response that had promised to keep
 * the connection open. A client that finished its upload in that window
 * (a loaded machine is enough) put the connection back in its pool and sent
 * its next request into a closed socket: `SocketError: other side closed`,
 * a request the server never answered. These tests play that client on a
 * raw socket, slowly enough to be past the drain's window every time.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

/** Longer than @hono/node-server's drain window (500 ms) for a body the answer did not wait for. */
const PAST_DRAIN_WINDOW_MS = 1_200;
const BODY_LIMIT = 64 * 1024;

let server: TestServer;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  server = await startTestServer({ SLUICE_BODY_LIMIT_BYTES: String(BODY_LIMIT) });
});
afterAll(async () => {
  await server?.stop();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One HTTP/1.1 connection read answer by answer (Content-Length bodies only, which is all Sluice's JSON answers use). */
class RawConnection {
  readonly socket: Socket;
  #buffer = Buffer.alloc(0);
  #closed = false;
  #waiters: (() => void)[] = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake();
    });
    const closed = () => {
      this.#closed = true;
      this.#wake();
    };
    socket.on('close', closed);
    socket.on('error', closed);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  write(text: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.#closed || this.socket.destroyed) return resolve();
      this.socket.write(text, () => resolve());
    });
  }

  /** The next complete answer, or null when the connection closed first or `waitMs` passed. */
  async answer(waitMs: number): Promise<Answer | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const parsed = this.#parse();
      if (parsed !== null) return parsed;
      if (this.#closed || Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  #parse(): Answer | null {
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const [statusLine, ...lines] = this.#buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.#buffer.length < end + 4 + length) return null;
    const body = this.#buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.#buffer = this.#buffer.subarray(end + 4 + length);
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  }

  close(): void {
    this.socket.destroy();
  }
}

function head(method: string, path: string, length: number): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Token: ${TOKENS.admin}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
}

const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

describe('a kept-alive connection under a slow request body', () => {
  it('answers the next request on the connection after a route that reads no body, however slowly the body came', async () => {
    const port = new URL(server.sluice.url).port;
    const conn = await RawConnection.open(Number(port));
    try {
      const body = JSON.stringify({ reason: 'x'.repeat(40_000) });
      // Half the body now; the route needs none of it, so it may answer at once.
      await conn.write(head('POST', '/api/queries/qry_none/cancel', Buffer.byteLength(body)) + body.slice(0, 20_000));
      const early = await conn.answer(PAST_DRAIN_WINDOW_MS);
      // The rest of the body only once the drain of an early answer has given up on it.
      if (early !== null) await sleep(PAST_DRAIN_WINDOW_MS);
      await conn.write(body.slice(20_000));
      const first = early ?? (await conn.answer(30_000));
      expect(first?.status).toBe(404);
      expect(JSON.parse(first!.body).errorCode).toBe('NOT_FOUND');
      if (first!.headers.connection === 'close') return; // told not to reuse it: a client then opens another
      // The connection was kept open: it must serve the next request.
      await conn.write(HEALTH);
      const second = await conn.answer(30_000);
      expect(second, 'the server closed a connection its answer had kept open').not.toBeNull();
      expect(second!.status).toBe(200);
    } finally {
      conn.close();
    }
  });

  it('answers a body over the limit with 413 and says it will close the connection', async () => {
    const port = new URL(server.sluice.url).port;
    const conn = await RawConnection.open(Number(port));
    try {
      await conn.write(head('POST', '/api/queries', BODY_LIMIT * 4) + '{"sql": "' + 'y'.repeat(1000));
      const answer = await conn.answer(30_000);
      expect(answer?.status).toBe(413);
      expect(JSON.parse(answer!.body).errorCode).toBe('PAYLOAD_TOO_LARGE');
      // The rest of the body will not be read: the answer must not invite the client to reuse the connection.
      expect(answer!.headers.connection).toBe('close');
    } finally {
      conn.close();
    }
  });

  it('keeps the connection for the next request when the whole body came with a request whose answer needed none of it', async () => {
    const port = new URL(server.sluice.url).port;
    const conn = await RawConnection.open(Number(port));
    try {
      const body = JSON.stringify({ reason: 'z'.repeat(1000) });
      await conn.write(head('POST', '/api/queries/qry_none/cancel', Buffer.byteLength(body)) + body);
      const first = await conn.answer(30_000);
      expect(first?.status).toBe(404);
      expect(first!.headers.connection).not.toBe('close');
      await sleep(PAST_DRAIN_WINDOW_MS);
      await conn.write(HEALTH);
      expect((await conn.answer(30_000))?.status).toBe(200);
    } finally {
      conn.close();
    }
  });
});
