/**
 * How POST /api/queries fails: PostgreSQL's own message and position for bad
 * SQL, READ_ONLY_VIOLATION for every way of writing (and the table really is
 * unchanged), a failure in mid-stream that leaves no artifact and nothing
 * staged, request validation, and no path or stack trace in any body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectFailure, expectNoLeak, runQuery, stagingEntries } from './query-test-helpers.ts';

// One schema per test process: a second run of this file against the same database must not collide.
const SCHEMA = `qtest_errors_${process.pid}`;
const TABLE = `${SCHEMA}.t`;
const ROWS = 25;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await server.sql.query(`drop schema if exists ${SCHEMA} cascade`);
  await server.sql.query(`create schema ${SCHEMA}`);
  await server.sql.query(`create table ${TABLE} (id int4 primary key, name text)`);
  await server.sql.query(`insert into ${TABLE} select g, 'n' || g from generate_series(1, ${ROWS}) g`);
  await server.sql.query(`create sequence ${SCHEMA}.seq`);
});

afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${SCHEMA} cascade`);
  await server?.stop();
});

async function tableState(): Promise<{ n: number; names: string }> {
  const rows = await server.sql.query<{ n: number; names: string }>(`
    select count(*)::int as n, coalesce(string_agg(name, ',' order by id), '') as names from ${SCHEMA}.t`);
  return rows[0]!;
}

/** The artifacts of a session, as the API lists them. */
async function artifactsOf(sessionId: string): Promise<unknown[]> {
  const r = await server.request(`/api/artifacts?sessionId=${sessionId}`);
  expect(r.status).toBe(200);
  return r.body.data.artifacts;
}

describe('SQL errors', () => {
  it('a bad column is SQL_ERROR with PostgreSQL\u2019s message and its position', async () => {
    const sql = `select id, nope from ${TABLE}`;
    const r = await runQuery(server, { sql });
    expectFailure(r, 'SQL_ERROR', 400);
    expect(r.body.error.message).toContain('column "nope" does not exist');
    expect(r.body.error.details.position).toBe(sql.indexOf('nope') + 1);
    expect(r.body.error.details.sqlState).toBe('42703');
  });

  it('the position counts from the start of the text sent, even after leading whitespace and comments', async () => {
    const sql = `\n  -- the ids\n  select id, nope from ${TABLE};  `;
    const r = await runQuery(server, { sql });
    expectFailure(r, 'SQL_ERROR', 400);
    expect(r.body.error.details.position).toBe(sql.indexOf('nope') + 1);
  });

  it('a syntax error is SQL_ERROR with a position', async () => {
    const sql = `select id frm ${TABLE}`;
    const r = await runQuery(server, { sql });
    expectFailure(r, 'SQL_ERROR', 400);
    expect(r.body.error.details.position).toBe(sql.indexOf(SCHEMA) + 1);
  });

  it('an unknown table is SQL_ERROR naming it', async () => {
    const r = await runQuery(server, { sql: `select * from ${SCHEMA}.missing` });
    expectFailure(r, 'SQL_ERROR', 400);
    expect(r.body.error.message).toContain(`${SCHEMA}.missing`);
    expect(r.body.error.details.sqlState).toBe('42P01');
  });

  it('a failure in the first rows (before anything was sent) is SQL_ERROR, and the server goes on', async () => {
    const r = await runQuery(server, { sql: 'select 1 / (g - 3) from generate_series(1, 10) g' });
    expectFailure(r, 'SQL_ERROR', 400);
    expect(r.body.error.message).toContain('division by zero');
    expect(r.body.error.details.sqlState).toBe('22012');
    const next = await runQuery(server, { sql: 'select 2 as two' });
    expect(next.status).toBe(200);
    expect(next.body.data.preview.rows).toEqual([[2]]);
  });

  it('a failure in mid-stream is SQL_ERROR and leaves no artifact and nothing staged', async () => {
    const session = 'errors-midstream';
    const r = await runQuery(server, { sql: 'select 1 / (g - 5000) as x from generate_series(1, 10000) g', sessionId: session, previewRows: 10 });
    expectFailure(r, 'SQL_ERROR', 400);
    expect(r.body.error.message).toContain('division by zero');
    expect(r.body.error.details.state).toBe('FAILED');
    expect(await artifactsOf(session)).toEqual([]);
    expect(stagingEntries(server)).toEqual([]);
    // The failed query answers the same when polled.
    const p = await server.request(`/api/queries/${r.body.error.details.queryId}`);
    expectFailure(p, 'SQL_ERROR', 400);
  });

  it('the same with materialize "always" and through the cursor path', async () => {
    const session = 'errors-midstream-cursor';
    const r = await runQuery(server, {
      sql: 'select 1 / (g - $1::int) as x from generate_series(1, 20000) g',
      params: [15000],
      materialize: 'always',
      sessionId: session,
    });
    expectFailure(r, 'SQL_ERROR', 400);
    expect(r.body.error.message).toContain('division by zero');
    expect(await artifactsOf(session)).toEqual([]);
    expect(stagingEntries(server)).toEqual([]);
  });
});

describe('READ_ONLY_VIOLATION', () => {
  const writes: [string, string][] = [
    ['a COMMIT that would end the read-only transaction', `COMMIT; DELETE FROM ${TABLE}`],
    ['a data-modifying CTE', `with gone as (delete from ${TABLE} returning *) select count(*) from gone`],
    ['an UPDATE in a CTE', `with u as (update ${TABLE} set name = 'x' returning 1) select * from u`],
    ['a DO block', `DO $$ begin delete from ${TABLE}; end $$`],
    ['a commented, mixed-case DELETE', `/* c */ DeLeTe from ${TABLE}`],
    ['a file read', `select pg_read_file('/etc/passwd')`],
    ['a settings change', `select set_config('x', 'y', false)`],
    ['INSERT', `insert into ${TABLE} values (1000, 'x')`],
    ['TRUNCATE', `truncate ${TABLE}`],
    ['DROP', `drop table ${TABLE}`],
    ['SELECT INTO', `select * into ${SCHEMA}.copy from ${TABLE}`],
    ['a sequence change', `select nextval('${SCHEMA}.seq')`],
    ['row locking', `select * from ${TABLE} for update`],
    ['EXPLAIN ANALYZE of a delete', `explain analyze delete from ${TABLE}`],
  ];

  for (const [label, sql] of writes) {
    it(`refuses ${label} and leaves the table unchanged`, async () => {
      const before = await tableState();
      const r = await runQuery(server, { sql });
      expectFailure(r, 'READ_ONLY_VIOLATION', 400);
      expect(r.body.error.message.length).toBeGreaterThan(10);
      expect(await tableState()).toEqual(before);
      expect(before.n).toBe(ROWS);
    });
  }

  it('nothing was created either', async () => {
    const rows = await server.sql.query(`select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relname = 'copy'`, [SCHEMA]);
    expect(rows).toHaveLength(0);
    const [seq] = await server.sql.query<{ last_value: string; is_called: boolean }>(`select last_value::text, is_called from ${SCHEMA}.seq`);
    expect(seq!.is_called).toBe(false);
  });

  it('the database refuses what slips past the parser: a volatile function that writes', async () => {
    await server.sql.query(`create or replace function ${SCHEMA}.sneaky() returns int language sql volatile as $$ delete from ${TABLE} returning 1 $$`);
    const before = await tableState();
    const r = await runQuery(server, { sql: `select ${SCHEMA}.sneaky()` });
    expectFailure(r, 'READ_ONLY_VIOLATION', 400);
    expect(r.body.error.details.sqlState).toBe('25006');
    expect(await tableState()).toEqual(before);
  });
});

describe('request validation', () => {
  it('an unknown datasource is NOT_FOUND', async () => {
    const r = await runQuery(server, { sql: 'select 1', datasource: 'nope' });
    expectFailure(r, 'NOT_FOUND', 404);
    expect(r.body.error.message).toContain('nope');
  });

  it('fewer params than the statement uses is VALIDATION_ERROR', async () => {
    const r = await runQuery(server, { sql: 'select $1::int as a, $2::int as b', params: [1] });
    expectFailure(r, 'VALIDATION_ERROR', 400);
    expect(r.body.error.message).toContain('$2');
  });

  it('params without any placeholder in the statement are refused too', async () => {
    const r = await runQuery(server, { sql: 'select 1 as a', params: [1, 2] });
    expect(r.status).toBe(400);
    expectFailure(r, r.body.errorCode);
    expect(['VALIDATION_ERROR', 'SQL_ERROR']).toContain(r.body.errorCode);
  });

  it('previewRows above 500 is VALIDATION_ERROR', async () => {
    const r = await runQuery(server, { sql: 'select 1', previewRows: 501 });
    expectFailure(r, 'VALIDATION_ERROR', 400);
    expect(JSON.stringify(r.body.error)).toContain('previewRows');
  });

  it('negative previewRows, unknown materialize and unknown limits are VALIDATION_ERROR', async () => {
    expectFailure(await runQuery(server, { sql: 'select 1', previewRows: -1 }), 'VALIDATION_ERROR', 400);
    expectFailure(await runQuery(server, { sql: 'select 1', materialize: 'sometimes' }), 'VALIDATION_ERROR', 400);
    expectFailure(await runQuery(server, { sql: 'select 1', limits: { maxRows: 0 } }), 'VALIDATION_ERROR', 400);
    expectFailure(await runQuery(server, { sql: 'select 1', limits: { maxCells: 5 } }), 'VALIDATION_ERROR', 400);
    expectFailure(await runQuery(server, { sql: 'select 1', extra: true }), 'VALIDATION_ERROR', 400);
  });

  it('an empty or blank sql is VALIDATION_ERROR', async () => {
    expectFailure(await runQuery(server, { sql: '' }), 'VALIDATION_ERROR', 400);
    expectFailure(await runQuery(server, { sql: '   \n ' }), 'VALIDATION_ERROR', 400);
    expectFailure(await runQuery(server, { sql: '-- only a comment' }), 'VALIDATION_ERROR', 400);
    expectFailure(await runQuery(server, {}), 'VALIDATION_ERROR', 400);
  });

  it('a body that is not JSON is VALIDATION_ERROR', async () => {
    const r = await server.request('/api/queries', { rawBody: '{"sql": ', headers: { 'content-type': 'application/json' } });
    expectFailure(r, 'VALIDATION_ERROR', 400);
  });

  it('a statement with no columns is VALIDATION_ERROR', async () => {
    const r = await runQuery(server, { sql: `select from ${TABLE}` });
    expectFailure(r, 'VALIDATION_ERROR', 400);
  });
});

describe('nothing internal leaks', () => {
  const bodies: [string, Record<string, unknown>][] = [
    ['a file read', { sql: `select pg_read_file('/var/lib/x')` }],
    ['a file function through a schema', { sql: `select pg_catalog.pg_ls_dir('/var/lib')` }],
    ['a path in a bad COPY', { sql: `copy ${TABLE} to '/var/lib/out.csv'` }],
    ['a bad cast', { sql: `select 'x'::int` }],
    ['a huge number', { sql: `select 99999999999999999999::int8` }],
  ];
  for (const [label, body] of bodies) {
    it(`${label}: no path, no node_modules, no stack frame`, async () => {
      const r = await runQuery(server, body);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expectNoLeak(r);
      expect(JSON.stringify(r.body)).not.toContain(server.dataDir);
    });
  }
});
