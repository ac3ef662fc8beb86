/**
 * How the API fails: malformed and mistyped bodies, oversized bodies,
 * unknown routes and hostile ids all answer the error envelope with a stable
 * code, and no answer ever carries a filesystem path or a stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let small: TestServer;

const LEAKS = ['/tmp/', '/work/', 'node_modules', ' at ', '.ts:', 'sluice-test-'];

function expectNoLeak(r: { body: unknown }): void {
  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  for (const leak of LEAKS) expect(text, `response contains ${JSON.stringify(leak)}: ${text.slice(0, 500)}`).not.toContain(leak);
}

function expectFailure(r: { status: number; body: any }, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ success: false, data: null, errorCode: code });
  expect(r.body.summary).toEqual(expect.any(String));
  expect(r.body.error.message).toEqual(expect.any(String));
  expectNoLeak(r);
}

beforeAll(async () => {
  [server, small] = await Promise.all([startTestServer(), startTestServer({ SLUICE_BODY_LIMIT_BYTES: '2048' })]);
});

afterAll(async () => {
  await Promise.all([server?.stop(), small?.stop()]);
});

describe('request bodies', () => {
  it('answers 400 VALIDATION_ERROR for malformed JSON', async () => {
    for (const rawBody of ['{"sql": "select 1"', '{sql: 1}', 'not json', '']) {
      const r = await server.request('/api/queries', { method: 'POST', rawBody, headers: { 'content-type': 'application/json' } });
      expectFailure(r, 400, 'VALIDATION_ERROR');
    }
    const read = await server.request('/api/artifacts/art_x/read', { method: 'POST', rawBody: '[1,', headers: { 'content-type': 'application/json' } });
    expectFailure(read, 400, 'VALIDATION_ERROR');
  });

  it('answers VALIDATION_ERROR naming the field for a value of the wrong type', async () => {
    const cases: [unknown, string][] = [
      [{ sql: 5 }, 'sql'],
      [{ sql: 'select 1', limits: { maxRows: 'x' } }, 'limits.maxRows'],
      [{ sql: 'select 1', previewRows: -1 }, 'previewRows'],
      [{ sql: 'select 1', materialize: 'sometimes' }, 'materialize'],
      [{ sql: 'select 1', params: [{ a: 1 }] }, 'params.0'],
      [{ sql: 'select 1', limits: { maxRows: 10, maxRowz: 5 } }, 'maxRowz'],
      [{ sql: 'select 1', surprise: true }, 'surprise'],
      [{}, 'sql'],
    ];
    for (const [body, field] of cases) {
      const r = await server.request('/api/queries', { body });
      expectFailure(r, 400, 'VALIDATION_ERROR');
      expect(r.body.error.message, JSON.stringify(body)).toContain(field);
    }
  });

  it('answers VALIDATION_ERROR for a read body with a wrong or unknown field', async () => {
    const query = await server.request('/api/queries', { body: { sql: 'select 1 as a', materialize: 'always' } });
    const id = query.body.data.artifact.id as string;
    const cases: [unknown, string][] = [
      [{ limit: 'ten' }, 'limit'],
      [{ columns: 'a' }, 'columns'],
      [{ filters: [{ column: 'a', op: 'eq', value: 1, extra: 1 }] }, 'extra'],
      [{ sort: [{ column: 'a', direction: 'up' }] }, 'sort.0.direction'],
      [{ page: 2 }, 'page'],
    ];
    for (const [body, field] of cases) {
      const r = await server.request(`/api/artifacts/${id}/read`, { body });
      expectFailure(r, 400, 'VALIDATION_ERROR');
      expect(r.body.error.message, JSON.stringify(body)).toContain(field);
    }
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over the limit, and accepts one under it', async () => {
    const big = { sql: `select '${'x'.repeat(10 * 1024)}' as padding` };
    const r = await small.request('/api/queries', { body: big });
    expectFailure(r, 413, 'PAYLOAD_TOO_LARGE');
    // Without a Content-Length the limit must still hold (the body arrives in chunks).
    const chunked = await fetch(`${small.sluice.url}/api/queries`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-token': 'test-admin-token-0001' },
      body: new ReadableStream({
        start(controller) {
          const bytes = new TextEncoder().encode(JSON.stringify(big));
          for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    const chunkedBody = await chunked.json();
    expectFailure({ status: chunked.status, body: chunkedBody }, 413, 'PAYLOAD_TOO_LARGE');
    const fine = await small.request('/api/queries', { body: { sql: `select '${'x'.repeat(1000)}' as padding` } });
    expect(fine.status).toBe(200);
  });
});

describe('routes and ids', () => {
  it('answers 404 NOT_FOUND with the envelope for an unknown route', async () => {
    expectFailure(await server.request('/api/nope'), 404, 'NOT_FOUND');
    expectFailure(await server.request('/api/artifacts/art_x/explode', { body: {} }), 404, 'NOT_FOUND');
    expectFailure(await server.request('/nope', { token: null }), 404, 'NOT_FOUND');
    expectFailure(await server.request('/api/queries', { method: 'PUT', body: { sql: 'select 1' } }), 404, 'NOT_FOUND');
  });

  it('never leaks a path or a stack trace for hostile artifact ids', async () => {
    const ids = [
      '..%2F..%2Fetc%2Fpasswd',
      '..%2F..%2F..%2F..%2F..%2Ftmp',
      '%2E%2E%2F%2E%2E%2Fcatalog.sqlite',
      '..%5C..%5Cwindows',
      'art_%00',
      "art_'%20OR%201%3D1%20--",
      'x'.repeat(150),
      'x'.repeat(5000),
    ];
    for (const id of ids) {
      const responses = [
        await server.request(`/api/artifacts/${id}`),
        await server.request(`/api/artifacts/${id}/read`, { body: {} }),
        await server.request(`/api/artifacts/${id}`, { method: 'DELETE' }),
      ];
      for (const r of responses) {
        expectNoLeak(r);
        expect(r.status, id.slice(0, 40)).toBeLessThan(500);
      }
      for (const r of responses.slice(0, 2)) {
        expect(r.status, id.slice(0, 40)).toBeGreaterThanOrEqual(400);
        expect(r.body.success).toBe(false);
      }
      // GET and read are either NOT_FOUND or, for an id too long to be one, VALIDATION_ERROR.
      expect(['NOT_FOUND', 'VALIDATION_ERROR']).toContain(responses[0]!.body.errorCode);
      expect(['NOT_FOUND', 'VALIDATION_ERROR']).toContain(responses[1]!.body.errorCode);
    }
  });

  it('never leaks a path or a stack trace from a failing query or a bad datasource', async () => {
    const responses = [
      await server.request('/api/queries', { body: { sql: 'select * from no_such_table_anywhere' } }),
      await server.request('/api/queries', { body: { sql: "select pg_read_file('/etc/passwd')" } }),
      await server.request('/api/queries', { body: { sql: 'select 1/0' } }),
      await server.request('/api/queries', { body: { sql: 'select 1', datasource: '../../etc' } }),
      await server.request('/api/datasources/..%2F..%2Fetc/tables'),
      await server.request('/api/datasources/default/tables/a.b.c.d'),
    ];
    for (const r of responses) {
      expectNoLeak(r);
      expect(r.body.success).toBe(false);
      expect(r.status).toBeLessThan(500);
    }
  });
});

describe('health', () => {
  it('GET /healthz answers 200', async () => {
    const r = await server.request('/healthz', { token: null });
    expect(r.status).toBe(200);
  });

  it('GET /readyz answers 200 once ready', async () => {
    const r = await server.request('/readyz', { token: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ready' });
  });
});
