/**
 * The decision matrix of POST /api/queries: materialize auto/always/never
 * against results smaller than, equal to and larger than the preview; the
 * row, byte and server caps and who set them; and that an artifact holds
 * exactly the rows the database returns, read back through its cursors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { readAll, runQuery, stagingEntries } from './query-test-helpers.ts';

// One schema per test process: a second run of this file against the same database must not collide.
const SCHEMA = `qtest_completeness_${process.pid}`;
const TABLE = `${SCHEMA}.items`;
const ROWS = 2345;

let server: TestServer;
let capped: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  capped = await startTestServer({ SLUICE_MAX_ROWS: '100' });
  await server.sql.query(`drop schema if exists ${SCHEMA} cascade`);
  await server.sql.query(`create schema ${SCHEMA}`);
  await server.sql.query(`
    create table ${TABLE} (id int4 primary key, label text, amount numeric(12,2), big int8);
    insert into ${TABLE}
      select g, 'item ' || g || case when g % 7 = 0 then E'\\nwith "quotes", commas' else '' end,
             (g * 1.25)::numeric(12,2), g::int8 * 1000000000000
        from generate_series(1, ${ROWS}) g;
  `);
});

afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${SCHEMA} cascade`);
  await capped?.stop();
  await server?.stop();
});

/** n rows 1..n of one int4 column. */
function series(n: number): string {
  return `select g::int4 as n from generate_series(1, ${n}) g order by g`;
}

describe('materialize × result size against previewRows', () => {
  const preview = 10;
  const cases = [
    { materialize: 'auto', rows: 3, status: 'COMPLETE', decision: 'SKIPPED', reason: 'PREVIEW_COMPLETE' },
    { materialize: 'auto', rows: 10, status: 'COMPLETE', decision: 'SKIPPED', reason: 'PREVIEW_COMPLETE' },
    { materialize: 'auto', rows: 25, status: 'INCOMPLETE', decision: 'CREATED' },
    { materialize: 'always', rows: 3, status: 'COMPLETE', decision: 'CREATED' },
    { materialize: 'always', rows: 10, status: 'COMPLETE', decision: 'CREATED' },
    { materialize: 'always', rows: 25, status: 'INCOMPLETE', decision: 'CREATED' },
    { materialize: 'never', rows: 3, status: 'COMPLETE', decision: 'SKIPPED', reason: 'MATERIALIZE_NEVER' },
    { materialize: 'never', rows: 10, status: 'COMPLETE', decision: 'SKIPPED', reason: 'MATERIALIZE_NEVER' },
    { materialize: 'never', rows: 25, status: 'INCOMPLETE', decision: 'SKIPPED', reason: 'MATERIALIZE_NEVER' },
  ] as const;

  for (const c of cases) {
    it(`${c.materialize} with ${c.rows} rows and previewRows ${preview}`, async () => {
      const r = await runQuery(server, { sql: series(c.rows), previewRows: preview, materialize: c.materialize });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const data = r.body.data;
      expect(data.state).toBe('SUCCEEDED');
      const shown = Math.min(c.rows, preview);
      expect(data.preview.columns).toEqual([{ name: 'n', type: 'int4' }]);
      expect(data.preview.rows).toEqual(Array.from({ length: shown }, (_, i) => [i + 1]));
      expect(data.completeness.status).toBe(c.status);
      expect(data.completeness.returnedRows).toBe(shown);
      if (c.status === 'COMPLETE') {
        expect(data.completeness).toMatchObject({ totalRows: c.rows, boundedBy: null, limitSetBy: null });
      } else {
        expect(data.completeness.boundedBy).toBe('previewRows');
        expect(data.completeness.limitSetBy).toBe('request');
        // Only a full export knows the total; "never" stops after previewRows + 1 rows.
        expect(data.completeness.totalRows).toBe(c.materialize === 'never' ? null : c.rows);
      }
      expect(data.artifact.decision).toBe(c.decision);
      if (c.decision === 'CREATED') {
        expect(data.artifact).toMatchObject({ coverage: 'COMPLETE', format: 'parquet', rowCount: c.rows });
        expect(data.artifact.id).toMatch(/^art_/);
        expect(data.artifact.sizeBytes).toBeGreaterThan(0);
        expect(Date.parse(data.artifact.expiresAt)).toBeGreaterThan(Date.now());
        expect(data.artifact.reason).toBeUndefined();
        const all = await readAll(server, data.artifact.id);
        expect(all.rows).toEqual(Array.from({ length: c.rows }, (_, i) => [i + 1]));
      } else {
        expect(data.artifact.reason).toBe(c.reason);
        expect(data.artifact.id).toBeUndefined();
        expect(data.artifact.coverage).toBeUndefined();
      }
      expect(data.progress.rowsWritten).toBe(c.materialize === 'never' && c.rows > preview ? preview : c.rows);
      expect(stagingEntries(server)).toEqual([]);
    });
  }

  it('an empty result is COMPLETE with zero rows and no artifact under auto', async () => {
    const r = await runQuery(server, { sql: `select id from ${TABLE} where id < 0`, previewRows: 5 });
    expect(r.status).toBe(200);
    expect(r.body.data.preview).toEqual({ columns: [{ name: 'id', type: 'int4' }], rows: [], cutCells: [] });
    expect(r.body.data.completeness).toMatchObject({ status: 'COMPLETE', returnedRows: 0, totalRows: 0, boundedBy: null });
    expect(r.body.data.artifact.decision).toBe('SKIPPED');
  });

  it('always on an empty result keeps a readable artifact of zero rows', async () => {
    const r = await runQuery(server, { sql: `select id, label from ${TABLE} where id < 0`, previewRows: 5, materialize: 'always' });
    expect(r.status).toBe(200);
    expect(r.body.data.completeness).toMatchObject({ status: 'COMPLETE', returnedRows: 0, totalRows: 0 });
    expect(r.body.data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: 0 });
    const all = await readAll(server, r.body.data.artifact.id);
    expect(all.columns).toEqual([{ name: 'id', type: 'int4' }, { name: 'label', type: 'text' }]);
    expect(all.rows).toEqual([]);
  });

  it('the server default previewRows bounds the preview and is reported as set by the server', async () => {
    const r = await runQuery(server, { sql: series(120) });
    expect(r.status).toBe(200);
    expect(r.body.data.preview.rows).toHaveLength(50);
    expect(r.body.data.completeness).toMatchObject({
      status: 'INCOMPLETE',
      returnedRows: 50,
      totalRows: 120,
      boundedBy: 'previewRows',
      limitSetBy: 'server',
    });
    expect(r.body.data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: 120 });
  });
});

describe('previewRows 0', () => {
  it('auto: no preview rows, the total known, the whole result in the artifact', async () => {
    const r = await runQuery(server, { sql: series(30), previewRows: 0 });
    expect(r.status).toBe(200);
    const data = r.body.data;
    expect(data.preview.columns).toEqual([{ name: 'n', type: 'int4' }]);
    expect(data.preview.rows).toEqual([]);
    expect(data.completeness).toMatchObject({ status: 'INCOMPLETE', returnedRows: 0, totalRows: 30, boundedBy: 'previewRows' });
    expect(data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: 30 });
  });

  it('auto on an empty result: COMPLETE, nothing kept', async () => {
    const r = await runQuery(server, { sql: `select id from ${TABLE} where false`, previewRows: 0 });
    expect(r.body.data.completeness).toMatchObject({ status: 'COMPLETE', returnedRows: 0, totalRows: 0 });
    expect(r.body.data.artifact.decision).toBe('SKIPPED');
  });

  it('never on a non-empty result: not COMPLETE, since rows exist that were not shown', async () => {
    const r = await runQuery(server, { sql: series(30), previewRows: 0, materialize: 'never' });
    expect(r.status).toBe(200);
    expect(r.body.data.preview.rows).toEqual([]);
    expect(r.body.data.completeness).toMatchObject({
      status: 'INCOMPLETE',
      returnedRows: 0,
      totalRows: null,
      boundedBy: 'previewRows',
      limitSetBy: 'request',
    });
    expect(r.body.data.artifact).toMatchObject({ decision: 'SKIPPED', reason: 'MATERIALIZE_NEVER' });
  });

  it('never under a lower row cap: the cap holds and is named, by whoever set it', async () => {
    const r = await runQuery(server, { sql: series(30), previewRows: 20, materialize: 'never', limits: { maxRows: 5 } });
    expect(r.body.data.preview.rows).toEqual([[1], [2], [3], [4], [5]]);
    expect(r.body.data.completeness).toEqual({ status: 'INCOMPLETE', returnedRows: 5, totalRows: null, boundedBy: 'maxRows', limitSetBy: 'request' });
    const server100 = await runQuery(capped, { sql: series(300), previewRows: 200, materialize: 'never' });
    expect(server100.body.data.preview.rows).toHaveLength(100);
    expect(server100.body.data.completeness).toMatchObject({ status: 'INCOMPLETE', boundedBy: 'maxRows', limitSetBy: 'server' });
    // Exactly at the cap: nothing more exists, so the result is complete.
    const exact = await runQuery(server, { sql: series(5), previewRows: 20, materialize: 'never', limits: { maxRows: 5 } });
    expect(exact.body.data.completeness).toMatchObject({ status: 'COMPLETE', returnedRows: 5, totalRows: 5 });
  });

  it('never on an empty result: COMPLETE with zero rows', async () => {
    const r = await runQuery(server, { sql: `select id from ${TABLE} where false`, previewRows: 0, materialize: 'never' });
    expect(r.body.data.completeness).toMatchObject({ status: 'COMPLETE', returnedRows: 0, totalRows: 0, boundedBy: null });
  });

  it('always: an artifact even though nothing was shown', async () => {
    const r = await runQuery(server, { sql: series(4), previewRows: 0, materialize: 'always' });
    expect(r.body.data.preview.rows).toEqual([]);
    expect(r.body.data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: 4 });
    expect((await readAll(server, r.body.data.artifact.id)).rows).toEqual([[1], [2], [3], [4]]);
  });
});

describe('the artifact is the database result', () => {
  it('holds every row the database returns, in order, read back through cursors', async () => {
    const sql = `select id, label, amount, big from ${TABLE} order by id`;
    const r = await runQuery(server, { sql, previewRows: 7 });
    expect(r.status).toBe(200);
    const data = r.body.data;
    const counted = await server.sql.query<{ n: number }>(`select count(*)::int as n from ${SCHEMA}.items`);
    const n = counted[0]!.n;
    expect(n).toBe(ROWS);
    expect(data.completeness).toMatchObject({ status: 'INCOMPLETE', returnedRows: 7, totalRows: n, boundedBy: 'previewRows' });
    expect(data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: n });
    expect(data.progress.rowsWritten).toBe(n);

    const meta = await server.request(`/api/artifacts/${data.artifact.id}`);
    expect(meta.status).toBe(200);
    expect(meta.body.data).toMatchObject({ state: 'COMMITTED', rowCount: n, coverage: 'COMPLETE', sql });
    expect(meta.body.data.columns).toEqual([
      { name: 'id', type: 'int4' },
      { name: 'label', type: 'text' },
      { name: 'amount', type: 'numeric' },
      { name: 'big', type: 'int8' },
    ]);

    const all = await readAll(server, data.artifact.id, undefined, 500);
    expect(all.pages).toBe(Math.ceil(n / 500));
    const truth = await server.sql.query<{ id: number; label: string; amount: string; big: string }>(`
      select id, label, amount::text as amount, big::text as big from ${SCHEMA}.items order by id`);
    expect(all.rows).toHaveLength(truth.length);
    expect(all.rows).toEqual(truth.map((t) => [t.id, t.label, t.amount, t.big]));
    expect(data.preview.rows).toEqual(all.rows.slice(0, 7));
  });
});

describe('identical results', () => {
  it('give identical artifact bytes, stored once, however the stream was chunked; the same commit again is the same artifact', async () => {
    const usage = async () => (await server.request('/api/usage')).body.data as { principal: { artifacts: number; logicalBytes: number }; workspace: { physicalBytes: number } };
    const sql = `select g, 'row ' || g as label from generate_series(1, 20000) g`;
    const before = await usage();
    const first = await runQuery(server, { sql, previewRows: 5 });
    const afterFirst = await usage();
    expect(afterFirst.workspace.physicalBytes - before.workspace.physicalBytes).toBe(first.body.data.artifact.sizeBytes);
    // The same principal and session committing the same bytes again gets the existing artifact back, charged once.
    const again = await runQuery(server, { sql, previewRows: 5 });
    expect(again.body.data.artifact.id).toBe(first.body.data.artifact.id);
    expect((await usage()).principal).toEqual(afterFirst.principal);
    // Another session gets an artifact of its own, over the same stored bytes.
    const elsewhere = await runQuery(server, { sql, previewRows: 5, sessionId: 'elsewhere' });
    expect(elsewhere.body.data.artifact.id).not.toBe(first.body.data.artifact.id);
    expect(elsewhere.body.data.artifact.sizeBytes).toBe(first.body.data.artifact.sizeBytes);
    expect((await usage()).workspace.physicalBytes).toBe(afterFirst.workspace.physicalBytes);
  });
});

describe('caps', () => {
  it('limits.maxRows keeps exactly maxRows rows as a PREFIX set by the request', async () => {
    const r = await runQuery(server, { sql: `select id from ${TABLE} order by id`, previewRows: 5, limits: { maxRows: 37 } });
    expect(r.status).toBe(200);
    const data = r.body.data;
    expect(data.completeness).toMatchObject({
      status: 'INCOMPLETE',
      returnedRows: 5,
      totalRows: null,
      boundedBy: 'maxRows',
      limitSetBy: 'request',
    });
    expect(data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'PREFIX', rowCount: 37 });
    const all = await readAll(server, data.artifact.id);
    expect(all.rows).toEqual(Array.from({ length: 37 }, (_, i) => [i + 1]));
    const meta = await server.request(`/api/artifacts/${data.artifact.id}`);
    expect(meta.body.data).toMatchObject({ coverage: 'PREFIX', rowCount: 37 });
  });

  it('limits.maxRows equal to the result size is no cut: COMPLETE coverage', async () => {
    const r = await runQuery(server, { sql: series(37), previewRows: 5, limits: { maxRows: 37 } });
    expect(r.body.data.completeness).toMatchObject({ status: 'INCOMPLETE', totalRows: 37, boundedBy: 'previewRows' });
    expect(r.body.data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: 37 });
  });

  it('limits.maxRows below previewRows cuts the preview too', async () => {
    const r = await runQuery(server, { sql: series(100), previewRows: 10, limits: { maxRows: 4 } });
    expect(r.body.data.preview.rows).toEqual([[1], [2], [3], [4]]);
    expect(r.body.data.completeness).toMatchObject({ status: 'INCOMPLETE', returnedRows: 4, totalRows: null, boundedBy: 'maxRows' });
    expect(r.body.data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'PREFIX', rowCount: 4 });
  });

  it('limits.maxBytes keeps the whole records whose CSV fits, as a PREFIX', async () => {
    // PostgreSQL's CSV quotes only what must be quoted: row g of this query is `g\n`.
    const maxBytes = 1000;
    let fit = 0;
    for (let used = 0, g = 1; used + String(g).length + 1 <= maxBytes; g++) {
      used += String(g).length + 1;
      fit++;
    }
    const r = await runQuery(server, { sql: series(5000), previewRows: 5, limits: { maxBytes } });
    expect(r.status).toBe(200);
    const data = r.body.data;
    expect(data.completeness).toMatchObject({
      status: 'INCOMPLETE',
      returnedRows: 5,
      totalRows: null,
      boundedBy: 'maxBytes',
      limitSetBy: 'request',
    });
    expect(data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'PREFIX', rowCount: fit });
    expect(data.progress.bytesWritten).toBeLessThanOrEqual(maxBytes);
    const all = await readAll(server, data.artifact.id);
    expect(all.rows).toEqual(Array.from({ length: fit }, (_, i) => [i + 1]));
  });

  it('limits.maxBytes smaller than the first row keeps no row but a readable empty PREFIX', async () => {
    const r = await runQuery(server, { sql: `select repeat('x', 100) as s from generate_series(1, 10)`, previewRows: 5, limits: { maxBytes: 10 } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const data = r.body.data;
    expect(data.preview.rows).toEqual([]);
    expect(data.completeness).toMatchObject({ status: 'INCOMPLETE', returnedRows: 0, totalRows: null, boundedBy: 'maxBytes' });
    // An empty prefix is still an artifact, and a readable one.
    expect(data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'PREFIX', rowCount: 0 });
    expect((await readAll(server, data.artifact.id)).rows).toEqual([]);
    expect(stagingEntries(server)).toEqual([]);
  });

  it('a server cap (SLUICE_MAX_ROWS) is reported as set by the server', async () => {
    const r = await runQuery(capped, { sql: series(1000), previewRows: 5 });
    expect(r.status).toBe(200);
    expect(r.body.data.completeness).toMatchObject({
      status: 'INCOMPLETE',
      returnedRows: 5,
      totalRows: null,
      boundedBy: 'maxRows',
      limitSetBy: 'server',
    });
    expect(r.body.data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'PREFIX', rowCount: 100 });
    expect((await readAll(capped, r.body.data.artifact.id)).rows).toEqual(Array.from({ length: 100 }, (_, i) => [i + 1]));
  });

  it('limits cannot raise the server cap', async () => {
    const r = await runQuery(capped, {
      sql: series(1000),
      previewRows: 5,
      limits: { maxRows: 1000, maxBytes: Number.MAX_SAFE_INTEGER, maxDurationMs: 24 * 3600_000 },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.completeness).toMatchObject({ boundedBy: 'maxRows', limitSetBy: 'server', totalRows: null });
    expect(r.body.data.artifact).toMatchObject({ coverage: 'PREFIX', rowCount: 100 });
  });

  it('a request limit below the server cap wins and is reported as the request\u2019s', async () => {
    const r = await runQuery(capped, { sql: series(1000), previewRows: 5, limits: { maxRows: 60 } });
    expect(r.body.data.completeness).toMatchObject({ boundedBy: 'maxRows', limitSetBy: 'request' });
    expect(r.body.data.artifact).toMatchObject({ coverage: 'PREFIX', rowCount: 60 });
  });

  it('a result of exactly the server cap is complete', async () => {
    const r = await runQuery(capped, { sql: series(100), previewRows: 5 });
    expect(r.body.data.completeness).toMatchObject({ status: 'INCOMPLETE', totalRows: 100, boundedBy: 'previewRows' });
    expect(r.body.data.artifact).toMatchObject({ coverage: 'COMPLETE', rowCount: 100 });
  });
});
