/**
 * X-Request-Id: a sane id the caller sends is echoed; anything else (too
 * long, control characters, unicode, empty, a list) is replaced by a random
 * id and never echoed. Every answer carries it (errors, 404s, /healthz,
 * /metrics, downloads, SSE streams, MCP); handlers read it from the Hono
 * context; log lines written during the request name it.
 */
import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/auth/middleware.ts';
import { withRequestIds, type Logger } from '../../src/logger.ts';
import { requestIdOf, requestIds } from '../../src/routes/common/request-id.ts';
import { LLM_BASE, startFakeLlm, type FakeLlm } from '../ai/llm-fake.ts';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
let llm: FakeLlm;
beforeAll(async () => {
  llm = startFakeLlm();
  server = await startTestServer({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: LLM_BASE, SLUICE_AI_MODEL: 'fake-model' });
});
afterAll(async () => {
  await server?.stop();
  llm?.close();
});

/** One HTTP/1.1 exchange over a socket, bytes as given: what fetch refuses to send (unicode, raw CR/LF) reaches the server. */
function rawRequest(port: number, head: Buffer): Promise<{ status: number; headers: string[] }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(Buffer.concat([head, Buffer.from('\r\n')])));
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [statusLine = '', ...headers] = received.split('\r\n\r\n')[0]!.split('\r\n');
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
  });
}

const headerLine = (name: string, value: string) => Buffer.from(`GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${name}: ${value}\r\n`, 'utf8');

describe('which ids are taken', () => {
  it('takes 1-128 characters of letters, digits and ._:- as they are', () => {
    for (const id of ['a', 'abc-123', 'trace.id:span_4', 'A'.repeat(128), '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01']) expect(requestIdOf(id)).toBe(id);
  });

  it('replaces everything else with a random id', () => {
    const hostile = [undefined, '', 'A'.repeat(129), 'abc\r\nX-Injected: 1', 'abc\ndef', 'abc\rdef', 'a b', 'a,b', 'ünïcødé', 'id-✓', 'a\u0000b', '"quoted"', 'a/b', '<script>'];
    const ids = hostile.map(requestIdOf);
    for (const [i, id] of ids.entries()) expect(id, JSON.stringify(hostile[i])).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('X-Request-Id on the answers of a server', () => {
  it('echoes a sane id and generates a fresh one when none is sent', async () => {
    const sent = await server.request('/healthz', { token: null, headers: { 'x-request-id': 'client-42.a:b_c' } });
    expect(sent.headers.get('x-request-id')).toBe('client-42.a:b_c');
    const first = (await server.request('/healthz', { token: null })).headers.get('x-request-id');
    const second = (await server.request('/healthz', { token: null })).headers.get('x-request-id');
    expect(first).toMatch(UUID);
    expect(second).toMatch(UUID);
    expect(first).not.toBe(second);
  });

  it('replaces a too long, empty, listed or latin-1 id and never echoes it', async () => {
    for (const value of ['A'.repeat(129), '', 'one, two', 'caf\u00e9']) {
      const answer = await server.request('/healthz', { token: null, headers: { 'x-request-id': value } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-request-id'), JSON.stringify(value)).toMatch(UUID);
    }
  });

  it('replaces unicode sent as raw bytes, and a CR/LF in the value cannot add a header to the answer', async () => {
    const unicode = await rawRequest(server.sluice.port, headerLine('X-Request-Id', 'ünïcødé-✓'));
    expect(unicode.status).toBe(200);
    const echoed = unicode.headers.filter((h) => /^x-request-id:/i.test(h));
    expect(echoed).toHaveLength(1);
    expect(echoed[0]!.split(': ')[1]).toMatch(UUID);

    // CRLF ends the header line: the id is what came before it, and the rest is a request header of its own, never an answer's.
    const split = await rawRequest(server.sluice.port, headerLine('X-Request-Id', 'abc\r\nX-Injected: 1'));
    expect(split.headers.filter((h) => /^x-request-id:/i.test(h))).toEqual(['x-request-id: abc']);
    expect(split.headers.filter((h) => /^x-injected/i.test(h))).toEqual([]);

    // A bare CR inside the value: the HTTP parser refuses the request; nothing of it comes back.
    const bare = await rawRequest(server.sluice.port, headerLine('X-Request-Id', 'abc\rX-Injected: 1'));
    expect(bare.headers.filter((h) => /injected/i.test(h))).toEqual([]);
  });

  it('is on errors, 404s, /metrics, downloads, SSE streams and MCP answers', async () => {
    const id = 'every-answer-1';
    const headers = { 'x-request-id': id };
    const artifact = await createArtifact(server, 'select 1 as one');
    const answers = {
      unauthorized: await server.request('/api/usage', { token: null, headers }),
      forbidden: await server.request('/api/queries', { token: TOKENS.reader, headers, body: { sql: 'select 1' } }),
      invalid: await server.request('/api/queries', { rawBody: '{not json', headers: { ...headers, 'content-type': 'application/json' } }),
      sqlError: await server.request('/api/queries', { headers, body: { sql: 'select * from no_such_table_anywhere' } }),
      unmatched: await server.request('/no/such/route', { token: null, headers }),
      missingArtifact: await server.request('/api/artifacts/art_nope', { headers }),
      metrics: await server.request('/metrics', { token: null, headers }),
      readiness: await server.request('/readyz', { token: null, headers }),
      download: await server.request(`/api/artifacts/${artifact}/download?format=csv`, { headers }),
      docs: await server.request('/openapi.json', { token: null, headers }),
    };
    expect(answers.unauthorized.status).toBe(401);
    expect(answers.invalid.status).toBe(400);
    expect(answers.sqlError.status).toBe(400);
    expect(answers.unmatched.status).toBe(404);
    expect(answers.download.status).toBe(200);
    for (const [name, answer] of Object.entries(answers)) expect(answer.headers.get('x-request-id'), name).toBe(id);

    llm.streamPieces(['one ', 'two']);
    const stream = await fetch(`${server.sluice.url}/api/ai/chat/stream`, {
      method: 'POST',
      headers: { ...headers, 'x-token': TOKENS.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(stream.headers.get('x-request-id')).toBe(id);
    expect(await stream.text()).toContain('event: done');

    const mcp = await fetch(`${server.sluice.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'x-token': TOKENS.admin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(mcp.status).toBe(200);
    expect(mcp.headers.get('x-request-id')).toBe(id);
    expect(((await mcp.json()) as { result?: unknown }).result).toBeDefined();
  });
});

describe('the request id inside the server', () => {
  it('is in the Hono context for handlers, and in the log lines written while the request runs, awaits included', async () => {
    const lines: string[] = [];
    const capture: Logger = { info: (line) => lines.push(line), error: (line) => lines.push(line) };
    const log = withRequestIds(capture);
    const app = new Hono<AppEnv>();
    app.use('*', requestIds());
    app.get('/work', async (c) => {
      log.info('started');
      await new Promise((r) => setTimeout(r, 5));
      log.error('still this request', new Error('cause'));
      return c.text(c.get('requestId'));
    });
    const answer = await app.request('/work', { headers: { 'x-request-id': 'ctx-7' } });
    expect(await answer.text()).toBe('ctx-7');
    expect(answer.headers.get('x-request-id')).toBe('ctx-7');
    log.info('outside any request');
    expect(lines).toEqual(['[request ctx-7] started', '[request ctx-7] still this request', 'outside any request']);
  });
});
