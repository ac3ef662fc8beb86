/**
 * The audit trail end to end: each audited action run over HTTP against the
 * real database, then read back through GET /api/admin/audit with the
 * fields it must hold; the route's paging, filters, role and bad input.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifact, EMBEDDED, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { LLM_BASE, startFakeLlm, type FakeLlm } from '../ai/llm-fake.ts';
import { entriesOf, waitForEntries, type Entry } from './audit-trail-helpers.ts';

const S = 'audit_http';
const MODEL = `
explores:
  - name: audit_sales
    datasource: default
    table: ${S}.sales
    dimensions: [{ name: region, type: string }]
    metrics: [{ name: revenue, type: sum, sql: amount }]
`;

let server: TestServer;
let llm: FakeLlm;
let modelsDir: string;
let seq = 0;

/** A fresh X-Request-Id for each call, so each test finds its own entries. */
function rid(name: string): string {
  return `audit-${name}-${++seq}-${Date.now()}`;
}

function call(path: string, init: { method?: string; body?: unknown; token?: string | null; requestId: string }) {
  const { requestId, ...rest } = init;
  return server.request(path, { ...rest, headers: { 'x-request-id': requestId } });
}

beforeAll(async () => {
  llm = startFakeLlm();
  modelsDir = mkdtempSync(join(tmpdir(), 'sluice-audit-models-'));
  writeFileSync(join(modelsDir, 'audit.yml'), MODEL);
  server = await startTestServer({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: LLM_BASE, SLUICE_AI_MODEL: 'fake-model', SLUICE_MODELS_DIR: modelsDir });
  await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
  await server.sql.query(`create table ${S}.sales as select g as id, (array['north','south'])[1 + g % 2] as region, (g % 7)::numeric(10,2) as amount from generate_series(1, 200) g`);
});
afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
  await server?.stop();
  llm?.close();
  rmSync(modelsDir, { recursive: true, force: true });
});

describe('what the audit records', () => {
  it('records a query when it ends, with its SQL, artifact, rows, bytes, duration and the request id, once', async () => {
    const id = rid('query');
    const sql = 'select g, md5(g::text) as h from generate_series(1, 120) g';
    const r = await call('/api/queries', { body: { sql, materialize: 'always' }, token: TOKENS.analyst, requestId: id });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe(id);
    const [entry, ...more] = await entriesOf(server, id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      principal: 'analyst',
      action: 'query',
      route: '/api/queries',
      datasource: 'default',
      sql,
      artifactId: r.body.data.artifact.id,
      outcome: 'ok',
      errorCode: null,
      rows: 120,
      requestId: id,
    });
    expect(entry!.bytes).toBe(r.body.data.progress.bytesWritten);
    expect(entry!.bytes).toBeGreaterThan(120 * 32);
    expect(entry!.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(entry!.at)).toBeLessThanOrEqual(Date.now());
  });

  it.skipIf(EMBEDDED)('records a query that outlives its answer when it reaches its final state, keeping the request id', async () => {
    const id = rid('async');
    const r = await call('/api/queries', { body: { sql: 'select pg_sleep(0.4), g from generate_series(1, 10) g', waitMs: 0 }, requestId: id });
    expect(r.status).toBe(202);
    const [entry] = await entriesOf(server, id);
    expect(entry).toMatchObject({ action: 'query', principal: 'admin', outcome: 'ok', rows: 10, requestId: id, route: '/api/queries' });
    expect(entry!.durationMs).toBeGreaterThanOrEqual(400);
  });

  it('records a failed query as failed with its code, and a refused one as refused with its SQL, each once', async () => {
    const failedId = rid('failed');
    const failed = await call('/api/queries', { body: { sql: 'select 1 / 0' }, requestId: failedId });
    expect(failed.body.errorCode).toBe('SQL_ERROR');
    const refusedId = rid('refused');
    const refused = await call('/api/queries', { body: { sql: `delete from ${S}.sales` }, token: TOKENS.reader, requestId: refusedId });
    expect(refused.body.errorCode).toBe('READ_ONLY_VIOLATION');
    const [f, ...fMore] = await entriesOf(server, failedId);
    expect(fMore).toEqual([]);
    expect(f).toMatchObject({ action: 'query', outcome: 'failed', errorCode: 'SQL_ERROR', sql: 'select 1 / 0', principal: 'admin', datasource: 'default', rows: 0 });
    const [x, ...xMore] = await entriesOf(server, refusedId);
    expect(xMore).toEqual([]);
    expect(x).toMatchObject({ action: 'query', outcome: 'refused', errorCode: 'READ_ONLY_VIOLATION', sql: `delete from ${S}.sales`, principal: 'reader', datasource: 'default', route: '/api/queries', rows: null });
    // Nothing was deleted, the audit changed nothing either.
    expect((await server.sql.query(`select count(*)::int as n from ${S}.sales`))[0]!.n).toBe(200);
  });

  it('records reads, aggregates, downloads and deletes with the artifact, route template and rows; another principal is refused', async () => {
    const artifact = await createArtifact(server, 'select g, g % 3 as k from generate_series(1, 50) g', TOKENS.reader);
    const ids = { read: rid('read'), aggregate: rid('aggregate'), download: rid('download'), stolen: rid('stolen'), delete: rid('delete') };
    expect((await call(`/api/artifacts/${artifact}/read`, { body: { limit: 7 }, token: TOKENS.reader, requestId: ids.read })).status).toBe(200);
    const agg = await call(`/api/artifacts/${artifact}/aggregate`, { body: { groupBy: ['k'], metrics: [{ fn: 'count' }] }, token: TOKENS.reader, requestId: ids.aggregate });
    expect(agg.body.data.rows).toHaveLength(3);
    const download = await call(`/api/artifacts/${artifact}/download?format=csv`, { token: TOKENS.reader, requestId: ids.download });
    expect(download.status).toBe(200);
    expect((await call(`/api/artifacts/${artifact}/read`, { body: { limit: 7 }, token: TOKENS.other, requestId: ids.stolen })).status).toBe(404);
    expect((await call(`/api/artifacts/${artifact}`, { method: 'DELETE', token: TOKENS.reader, requestId: ids.delete })).status).toBe(200);
    const base = { principal: 'reader', artifactId: artifact, outcome: 'ok', errorCode: null, datasource: null, sql: null };
    expect((await entriesOf(server, ids.read))[0]).toMatchObject({ ...base, action: 'read', route: '/api/artifacts/:id/read', rows: 7 });
    expect((await entriesOf(server, ids.aggregate))[0]).toMatchObject({ ...base, action: 'aggregate', route: '/api/artifacts/:id/aggregate', rows: 3 });
    // Written once the body ended, with the bytes it sent: the header row and 50 records.
    expect(typeof download.body).toBe('string');
    const sentBytes = Buffer.byteLength(download.body as string);
    expect(sentBytes).toBeGreaterThan(50 * 4);
    expect((await entriesOf(server, ids.download))[0]).toMatchObject({ ...base, action: 'download', route: '/api/artifacts/:id/download', bytes: sentBytes });
    expect((await entriesOf(server, ids.delete))[0]).toMatchObject({ ...base, action: 'delete', route: '/api/artifacts/:id', rows: null });
    expect((await entriesOf(server, ids.stolen))[0]).toMatchObject({ principal: 'other', action: 'read', artifactId: artifact, outcome: 'refused', errorCode: 'NOT_FOUND', rows: null });
    for (const id of Object.values(ids)) expect((await entriesOf(server, id))[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('records a download the client cut off as failed, with the bytes that left before it', async () => {
    const artifact = await createArtifact(server, `select g, repeat(md5(g::text), 8) as h from generate_series(1, 40000) g`, TOKENS.reader);
    // The whole CSV: the header, then each row's number, a comma, 256 hex digits and a newline (10.5 MB, more than loopback buffers hold).
    let total = 'g,h\n'.length;
    for (let g = 1; g <= 40000; g++) total += String(g).length + 258;
    const id = rid('cut');
    const abort = new AbortController();
    const response = await fetch(`${server.sluice.url}/api/artifacts/${artifact}/download?format=csv`, { headers: { 'x-token': TOKENS.reader, 'x-request-id': id }, signal: abort.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // Gone as a client that closes its connection is: the socket, not only the body.
    abort.abort();
    await reader.closed.catch(() => undefined);
    const [entry, ...more] = await entriesOf(server, id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ action: 'download', principal: 'reader', artifactId: artifact, outcome: 'failed', errorCode: null });
    expect(entry!.bytes).toBeGreaterThan(0);
    expect(entry!.bytes).toBeLessThan(total);
  });

  it('records a refused sign-in with no principal, and never the token it was sent', async () => {
    const id = rid('signin');
    const badToken = 'not-a-token-a1b2c3d4e5f6';
    const r = await server.request('/api/me', { token: null, headers: { authorization: `Bearer ${badToken}`, 'x-request-id': id } });
    expect(r.status).toBe(401);
    const [entry] = await entriesOf(server, id);
    expect(entry).toEqual({
      at: expect.any(String),
      principal: null,
      action: 'sign_in',
      route: '/api/me',
      datasource: null,
      sql: null,
      artifactId: null,
      outcome: 'refused',
      errorCode: 'UNAUTHORIZED',
      rows: null,
      bytes: null,
      durationMs: expect.any(Number),
      requestId: id,
    });
    // A refused sign-in on an audited route is a sign-in, not a read; no token of any kind is ever kept.
    const readId = rid('signin-read');
    await server.request('/api/artifacts/art_x/read', { token: 'wrong', body: { limit: 1 }, headers: { 'x-request-id': readId } });
    expect((await entriesOf(server, readId)).map((e) => [e.action, e.artifactId])).toEqual([['sign_in', null]]);
    const all = await waitForEntries(server, 'limit=500', () => true);
    const text = JSON.stringify(all);
    for (const secret of [badToken, ...Object.values(TOKENS)]) expect(text).not.toContain(secret);
  });

  it('records an agent request and the queries its tools ran under the same request id, and a chat request', async () => {
    const sql = `select region, count(*) as n from ${S}.sales group by region order by region`;
    llm.script({ toolCalls: [{ name: 'run_select', arguments: JSON.stringify({ sql }) }] }, { content: 'Two regions.' });
    const id = rid('agent');
    const r = await call('/api/ai/agent', { body: { prompt: 'How many sales per region?' }, token: TOKENS.analyst, requestId: id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const entries = await entriesOf(server, id, 2);
    const agent = entries.find((e) => e.action === 'agent');
    const query = entries.find((e) => e.action === 'query');
    expect(agent).toMatchObject({ principal: 'analyst', route: '/api/ai/agent', outcome: 'ok', errorCode: null, requestId: id });
    expect(query).toMatchObject({ principal: 'analyst', route: '/api/ai/agent', sql, rows: 2, outcome: 'ok', requestId: id });

    llm.script({ content: 'Try: select 1' });
    const chatId = rid('chat');
    expect((await call('/api/ai/chat', { body: { messages: [{ role: 'user', content: 'hi' }] }, token: TOKENS.analyst, requestId: chatId })).status).toBe(200);
    expect((await entriesOf(server, chatId))[0]).toMatchObject({ action: 'chat', principal: 'analyst', route: '/api/ai/chat', outcome: 'ok' });
    // A reader may not chat: refused, with the code it was answered.
    const deniedId = rid('chat-denied');
    expect((await call('/api/ai/chat', { body: { messages: [{ role: 'user', content: 'hi' }] }, token: TOKENS.reader, requestId: deniedId })).status).toBe(403);
    expect((await entriesOf(server, deniedId))[0]).toMatchObject({ action: 'chat', principal: 'reader', outcome: 'refused', errorCode: 'FORBIDDEN' });
  });

  it('records a semantic request and the statement it compiled to under the same request id', async () => {
    const id = rid('semantic');
    const r = await call('/api/semantic/query', { body: { intent: { type: 'metric', query: { explore: 'audit_sales', dimensions: ['audit_sales.region'], metrics: ['audit_sales.revenue'] } } }, token: TOKENS.analyst, requestId: id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const entries = await entriesOf(server, id, 2);
    expect(entries.find((e) => e.action === 'semantic')).toMatchObject({ principal: 'analyst', route: '/api/semantic/query', outcome: 'ok' });
    const query = entries.find((e) => e.action === 'query');
    expect(query).toMatchObject({ principal: 'analyst', route: '/api/semantic/query', datasource: 'default', rows: 2, outcome: 'ok' });
    expect(query!.sql).toContain(`${S}`);
  });

  it('leaves out what is not audited: describing an artifact, listing tables, the audit route itself', async () => {
    const id = rid('unaudited');
    await call('/api/datasources', { requestId: id });
    await call('/api/admin/audit?limit=1', { requestId: id });
    // A later audited request is written, so anything of the earlier ones would have been too.
    const marker = rid('marker');
    await server.request('/api/me', { token: 'wrong', headers: { 'x-request-id': marker } });
    await entriesOf(server, marker);
    expect((await waitForEntries(server, 'limit=500', () => true)).filter((e) => e.requestId === id)).toEqual([]);
  });
});

describe('GET /api/admin/audit', () => {
  it('pages newest first with an opaque cursor, each entry once, and filters by principal, action and time', async () => {
    const before = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = rid(`page${i}`);
      ids.push(id);
      await call('/api/artifacts/art_missing/read', { body: { limit: 1 }, token: TOKENS.other, requestId: id });
      // Distinct instants, so newest first is the reverse of this order.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await entriesOf(server, ids[4]!);
    const query = `principal=other&action=read&since=${encodeURIComponent(before)}`;
    await waitForEntries(server, `${query}&limit=500`, (items) => items.length >= 5);
    const seen: Entry[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await server.request(`/api/admin/audit?${query}&limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expect(r.status).toBe(200);
      expect(r.body.data.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.data.items);
      cursor = r.body.data.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen.map((e) => e.requestId)).toEqual([...ids].reverse());
    expect(seen.every((e) => e.principal === 'other' && e.action === 'read')).toBe(true);
    expect((await server.request(`/api/admin/audit?action=read&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.data).toEqual({ items: [], nextCursor: null });
    expect((await server.request(`/api/admin/audit?principal=${encodeURIComponent("other' OR '1'='1")}`)).body.data.items).toEqual([]);
    const def = await server.request('/api/admin/audit');
    expect(def.body.data.items.length).toBeLessThanOrEqual(100);
  });

  it('is for admins only: anyone else gets FORBIDDEN and sees nothing', async () => {
    for (const token of [TOKENS.analyst, TOKENS.reader]) {
      const r = await server.request('/api/admin/audit', { token });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, errorCode: 'FORBIDDEN', data: null });
    }
    expect((await server.request('/api/admin/audit', { token: null })).status).toBe(401);
  });

  it('refuses bad input with VALIDATION_ERROR, and a cursor it did not hand out with INVALID_CURSOR', async () => {
    const forged = Buffer.from(JSON.stringify(['not a time', 'x'])).toString('base64url');
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'action=drop', 'action=', 'since=yesterday', 'since=2026-13-01T00:00:00Z', `principal=${'p'.repeat(301)}`]) {
      const r = await server.request(`/api/admin/audit?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.errorCode, q).toBe('VALIDATION_ERROR');
    }
    for (const q of ['cursor=%%%', 'cursor=abc', `cursor=${forged}`]) {
      const r = await server.request(`/api/admin/audit?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.errorCode, q).toBe('INVALID_CURSOR');
    }
  });
});
