/**
 * Authentication and isolation over HTTP: tokens in either header, the 401
 * envelope, what a reader may do, datasource restrictions that hide a
 * datasource entirely, and principals that cannot see, read or delete each
 * other's artifacts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const SCHEMA = 'rtest_auth';

let server: TestServer;

function expectFailure(r: { status: number; body: any }, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ success: false, data: null, errorCode: code });
  expect(typeof r.body.summary).toBe('string');
  expect(r.body.summary.length).toBeGreaterThan(0);
  expect(typeof r.body.error.message).toBe('string');
  expect(r.body.error.message.length).toBeGreaterThan(0);
}

const artifactOf = (token: string, sql = `SELECT * FROM ${SCHEMA}.t ORDER BY id`): Promise<string> => createArtifact(server, sql, token);

beforeAll(async () => {
  server = await startTestServer();
  await server.sql.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await server.sql.query(`CREATE SCHEMA ${SCHEMA}`);
  await server.sql.query(`CREATE TABLE ${SCHEMA}.t (id int4 PRIMARY KEY, label text)`);
  await server.sql.query(`INSERT INTO ${SCHEMA}.t SELECT i, 'row ' || i FROM generate_series(1, 120) AS i`);
});

afterAll(async () => {
  await server?.sql.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await server?.stop();
});

describe('tokens', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/api/datasources'],
    ['GET', '/api/datasources/default/tables'],
    ['POST', '/api/queries', { sql: 'select 1' }],
    ['GET', '/api/artifacts'],
    ['GET', '/api/artifacts/art_whatever'],
    ['POST', '/api/artifacts/art_whatever/read', {}],
    ['DELETE', '/api/artifacts/art_whatever'],
  ];

  it('answers 401 UNAUTHORIZED with the error envelope when the token is missing', async () => {
    for (const [method, path, body] of routes) {
      const r = await server.request(path, { method, body, token: null });
      expectFailure(r, 401, 'UNAUTHORIZED');
    }
  });

  it('answers 401 UNAUTHORIZED for a wrong token, in either header', async () => {
    for (const [method, path, body] of routes) {
      expectFailure(await server.request(path, { method, body, token: 'not-a-real-token-123' }), 401, 'UNAUTHORIZED');
      expectFailure(await server.request(path, { method, body, token: null, headers: { authorization: 'Bearer not-a-real-token-123' } }), 401, 'UNAUTHORIZED');
    }
    // A prefix of a real token is not the token.
    expectFailure(await server.request('/api/datasources', { token: TOKENS.admin.slice(0, -1) }), 401, 'UNAUTHORIZED');
    expectFailure(await server.request('/api/datasources', { token: null, headers: { authorization: `Basic ${TOKENS.admin}` } }), 401, 'UNAUTHORIZED');
  });

  it('does not run the query of an unauthenticated request', async () => {
    const r = await server.request('/api/queries', { body: { sql: `SELECT * FROM ${SCHEMA}.t`, materialize: 'always' }, token: null });
    expectFailure(r, 401, 'UNAUTHORIZED');
    const list = await server.request('/api/artifacts?limit=500', { token: TOKENS.admin });
    expect(list.body.data.artifacts.filter((a: { sql: string }) => a.sql.includes(SCHEMA))).toEqual([]);
  });

  it('accepts Authorization: Bearer <token> as well as X-Token', async () => {
    const bearer = await server.request('/api/datasources', { token: null, headers: { authorization: `Bearer ${TOKENS.analyst}` } });
    expect(bearer.status).toBe(200);
    const lower = await server.request('/api/datasources', { token: null, headers: { authorization: `bearer ${TOKENS.analyst}` } });
    expect(lower.status).toBe(200);
    const xToken = await server.request('/api/datasources', { token: TOKENS.analyst });
    expect(xToken.status).toBe(200);
    expect(bearer.body).toEqual(xToken.body);
  });

  it('wraps a success in the envelope', async () => {
    const r = await server.request('/api/datasources', { token: TOKENS.analyst });
    expect(r.body).toEqual({ success: true, summary: expect.any(String), data: expect.any(Object), errorCode: null });
    expect(r.body.summary.length).toBeGreaterThan(0);
    expect(r.body.data.datasources.map((d: { id: string }) => d.id)).toContain('default');
  });
});

describe('roles', () => {
  it('a reader may use the schema, query and artifact routes', async () => {
    const token = TOKENS.reader;
    expect((await server.request('/api/datasources', { token })).status).toBe(200);
    const tables = await server.request(`/api/datasources/default/tables?schema=${SCHEMA}`, { token });
    expect(tables.status).toBe(200);
    expect(tables.body.data.tables.map((t: { name: string }) => t.name)).toEqual(['t']);
    const table = await server.request(`/api/datasources/default/tables/${SCHEMA}.t`, { token });
    expect(table.status).toBe(200);
    expect(table.body.data.primaryKey).toEqual(['id']);

    const id = await artifactOf(token);
    const meta = await server.request(`/api/artifacts/${id}`, { token });
    expect(meta.status).toBe(200);
    expect(meta.body.data.rowCount).toBe(120);
    const page = await server.request(`/api/artifacts/${id}/read`, { body: { limit: 2 }, token });
    expect(page.status).toBe(200);
    expect(page.body.data.rows).toEqual([
      [1, 'row 1'],
      [2, 'row 2'],
    ]);
    const list = await server.request('/api/artifacts', { token });
    expect(list.body.data.artifacts.map((a: { id: string }) => a.id)).toContain(id);
    const del = await server.request(`/api/artifacts/${id}`, { method: 'DELETE', token });
    expect(del.status).toBe(200);
    expectFailure(await server.request(`/api/artifacts/${id}`, { token }), 404, 'NOT_FOUND');
  });
});

describe('isolation between principals', () => {
  it('another principal\u2019s artifact is NOT_FOUND on GET and read, and its DELETE deletes nothing', async () => {
    const id = await artifactOf(TOKENS.analyst);
    for (const token of [TOKENS.other, TOKENS.reader, TOKENS.admin]) {
      expectFailure(await server.request(`/api/artifacts/${id}`, { token }), 404, 'NOT_FOUND');
      expectFailure(await server.request(`/api/artifacts/${id}/read`, { body: {}, token }), 404, 'NOT_FOUND');
      const list = await server.request('/api/artifacts?limit=500', { token });
      expect(list.body.data.artifacts.map((a: { id: string }) => a.id)).not.toContain(id);
    }
    // Deleting someone else's artifact answers exactly as deleting one that never existed: nothing leaks.
    const foreign = await server.request(`/api/artifacts/${id}`, { method: 'DELETE', token: TOKENS.other });
    const missing = await server.request('/api/artifacts/art_00000000000000000000000000000000', { method: 'DELETE', token: TOKENS.other });
    expect(foreign.status).toBe(missing.status);
    expect(foreign.body.errorCode).toBe(missing.body.errorCode);
    expectFailure(foreign, 404, 'NOT_FOUND');
    // And the owner still has it, whole.
    const meta = await server.request(`/api/artifacts/${id}`, { token: TOKENS.analyst });
    expect(meta.status).toBe(200);
    expect(meta.body.data.state).toBe('COMMITTED');
    const page = await server.request(`/api/artifacts/${id}/read`, { body: { limit: 1000 }, token: TOKENS.analyst });
    expect(page.body.data.rows).toHaveLength(120);
  });

  it('another principal cannot see a query by its id', async () => {
    const r = await server.request('/api/queries', { body: { sql: 'select 1 as a' }, token: TOKENS.analyst });
    const queryId = r.body.data.queryId as string;
    expectFailure(await server.request(`/api/queries/${queryId}`, { token: TOKENS.other }), 404, 'NOT_FOUND');
    expect((await server.request(`/api/queries/${queryId}`, { token: TOKENS.analyst })).status).toBe(200);
  });
});

describe('a token limited to other datasources', () => {
  let limited: TestServer;
  const LIMITED = 'test-limited-token-01';
  const FULL = 'test-full-token-00001';

  beforeAll(async () => {
    limited = await startTestServer({
      SLUICE_TOKENS: JSON.stringify([
        { token: LIMITED, principal: 'limited', roles: ['admin'], datasources: ['other'] },
        { token: FULL, principal: 'full', roles: ['reader'] },
      ]),
    });
  });

  afterAll(async () => {
    await limited?.stop();
  });

  it('replaces the harness tokens', async () => {
    expectFailure(await limited.request('/api/datasources', { token: TOKENS.admin }), 401, 'UNAUTHORIZED');
    expect((await limited.request('/api/datasources', { token: FULL })).body.data.datasources.map((d: { id: string }) => d.id)).toEqual(['default']);
  });

  it('lists no default datasource', async () => {
    const r = await limited.request('/api/datasources', { token: LIMITED });
    expect(r.status).toBe(200);
    expect(r.body.data.datasources).toEqual([]);
  });

  it('answers NOT_FOUND, never FORBIDDEN, for anything on default', async () => {
    expectFailure(await limited.request('/api/queries', { body: { sql: 'select 1', materialize: 'always' }, token: LIMITED }), 404, 'NOT_FOUND');
    expectFailure(await limited.request('/api/queries', { body: { sql: 'select 1', datasource: 'default' }, token: LIMITED }), 404, 'NOT_FOUND');
    expectFailure(await limited.request('/api/datasources/default/tables', { token: LIMITED }), 404, 'NOT_FOUND');
    expectFailure(await limited.request(`/api/datasources/default/tables/${SCHEMA}.t`, { token: LIMITED }), 404, 'NOT_FOUND');
    // The same answer as for a datasource that does not exist at all.
    const absent = await limited.request('/api/queries', { body: { sql: 'select 1', datasource: 'nowhere' }, token: LIMITED });
    expectFailure(absent, 404, 'NOT_FOUND');
    // A token limited to "other" may not use "other" either when the server has no such datasource.
    expectFailure(await limited.request('/api/queries', { body: { sql: 'select 1', datasource: 'other' }, token: LIMITED }), 404, 'NOT_FOUND');
    // Nothing ran for it: no artifact came of the refused queries.
    expect((await limited.request('/api/artifacts?limit=500', { token: LIMITED })).body.data.artifacts).toEqual([]);
  });
});
