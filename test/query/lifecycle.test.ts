/**
 * A query's life over HTTP: answering 202 RUNNING past waitMs and polling to
 * the end, cancelling (on the database too, leaving nothing staged), the
 * duration cap as a timeout or as a prefix, and that a query is visible to
 * its own principal only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { activeBackendsWith, eventually, expectFailure, readAll, runQuery, stagingEntries } from './query-test-helpers.ts';

let server: TestServer;

const cancellable = !EMBEDDED;
const NOT_CANCELLABLE = 'stopping a running statement needs a server that honours cancel requests; the embedded PGlite runs each statement to its end';
/** The title, with the reason when the embedded database makes the test skip. */
const needsCancel = (title: string) => skipNote(!cancellable, title, NOT_CANCELLABLE);

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.stop();
});

/** A comment that makes a statement findable in pg_stat_activity. */
function marker(): string {
  return `qtest_lifecycle_${randomUUID().replaceAll('-', '')}`;
}

describe('waiting and polling', () => {
  it('answers 202 RUNNING at waitMs 0, then 200 SUCCEEDED when polled', async () => {
    const r = await runQuery(server, { sql: 'select pg_sleep(2), 1 as one', waitMs: 0 });
    expect(r.status).toBe(202);
    expect(r.body.success).toBe(true);
    const running = r.body.data;
    expect(running.queryId).toMatch(/^qry_/);
    expect(running.state).toBe('RUNNING');
    expect(running.artifact).toBeNull();
    expect(running.completeness).toMatchObject({ status: 'UNKNOWN', totalRows: null });
    expect(running.progress).toMatchObject({ rowsWritten: 0 });

    const p = await server.request(`/api/queries/${running.queryId}?waitMs=20000`);
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.data).toMatchObject({
      queryId: running.queryId,
      state: 'SUCCEEDED',
      completeness: { status: 'COMPLETE', returnedRows: 1, totalRows: 1, boundedBy: null },
      artifact: { decision: 'SKIPPED' },
    });
    expect(p.body.data.preview).toEqual({ columns: [{ name: 'pg_sleep', type: 'void' }, { name: 'one', type: 'int4' }], rows: [['', 1]], cutCells: [] });
    expect(p.body.data.progress.elapsedMs).toBeGreaterThanOrEqual(2000);

    // A finished query keeps answering the same final state.
    const again = await server.request(`/api/queries/${running.queryId}`);
    expect(again.status).toBe(200);
    expect(again.body.data.state).toBe('SUCCEEDED');
  });

  it.skipIf(!cancellable)(needsCancel('a poll without waitMs answers at once with 202 while the query runs'), async () => {
    const tag = marker();
    const r = await runQuery(server, { sql: `select pg_sleep(3) /* ${tag} */`, waitMs: 0 });
    expect(r.status).toBe(202);
    const p = await server.request(`/api/queries/${r.body.data.queryId}`);
    expect(p.status).toBe(202);
    expect(p.body.data.state).toBe('RUNNING');
    const c = await server.request(`/api/queries/${r.body.data.queryId}/cancel`, { method: 'POST' });
    expect(c.body.data.state).toBe('CANCELLED');
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 0)).toBe(true);
  });
});

describe.skipIf(!cancellable)(needsCancel('cancel'), () => {
  it('stops the query on the database and leaves nothing staged', async () => {
    const tag = marker();
    const r = await runQuery(server, { sql: `select pg_sleep(30) /* ${tag} */`, waitMs: 0, materialize: 'always' });
    expect(r.status).toBe(202);
    const id = r.body.data.queryId;
    // The statement has reached the database before it is cancelled there.
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 1)).toBe(true);

    const c = await server.request(`/api/queries/${id}/cancel`, { method: 'POST' });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body.data.state).toBe('CANCELLED');
    expect(c.body.data.artifact).toMatchObject({ decision: 'CANCELLED', reason: 'QUERY_CANCELLED' });
    expect(c.body.data.artifact.id).toBeUndefined();

    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 0)).toBe(true);
    expect(await eventually(() => stagingEntries(server).length === 0)).toBe(true);
    const p = await server.request(`/api/queries/${id}`);
    expect(p.status).toBe(200);
    expect(p.body.data.state).toBe('CANCELLED');
    const list = await server.request('/api/artifacts');
    expect(list.body.data.artifacts.filter((a: { sql: string }) => a.sql.includes(tag))).toEqual([]);
  });

  it('stops a query with bound parameters (the cursor path) too', async () => {
    const tag = marker();
    const r = await runQuery(server, { sql: `select pg_sleep($1::float8), $2::text as tag /* ${tag} */`, params: [30, tag], waitMs: 0 });
    expect(r.status).toBe(202);
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 1)).toBe(true);
    const c = await server.request(`/api/queries/${r.body.data.queryId}/cancel`, { method: 'POST' });
    expect(c.body.data.state).toBe('CANCELLED');
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 0)).toBe(true);
    expect(await eventually(() => stagingEntries(server).length === 0)).toBe(true);
  });

  it('a cancel sent before the statement reached the database stops it all the same', async () => {
    const tag = marker();
    const r = await runQuery(server, { sql: `select pg_sleep(30) /* ${tag} */`, waitMs: 0 });
    const c = await server.request(`/api/queries/${r.body.data.queryId}/cancel`, { method: 'POST' });
    expect(c.status).toBe(200);
    expect(c.body.data.state).toBe('CANCELLED');
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 0)).toBe(true);
    const next = await runQuery(server, { sql: 'select 1 as one' });
    expect(next.body.data.preview.rows).toEqual([[1]]);
  });

  it('cancelling a finished query changes nothing', async () => {
    const r = await runQuery(server, { sql: 'select 1 as one' });
    expect(r.body.data.state).toBe('SUCCEEDED');
    const c = await server.request(`/api/queries/${r.body.data.queryId}/cancel`, { method: 'POST' });
    expect(c.status).toBe(200);
    expect(c.body.data.state).toBe('SUCCEEDED');
    expect(c.body.data.preview.rows).toEqual([[1]]);
  });

  it('the worker is usable again after a cancel', async () => {
    for (let i = 0; i < 3; i++) {
      const tag = marker();
      const r = await runQuery(server, { sql: `select pg_sleep(30) /* ${tag} */`, waitMs: 0 });
      expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 1)).toBe(true);
      const c = await server.request(`/api/queries/${r.body.data.queryId}/cancel`, { method: 'POST' });
      expect(c.body.data.state).toBe('CANCELLED');
      const next = await runQuery(server, { sql: 'select 41 + 1 as answer' });
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(next.body.data.preview.rows).toEqual([[42]]);
    }
  });
});

describe.skipIf(!cancellable)(needsCancel('the duration cap'), () => {
  it('stops a query with no row in time as QUERY_TIMEOUT, on the database too', async () => {
    const tag = marker();
    const r = await runQuery(server, { sql: `select pg_sleep(5) /* ${tag} */`, limits: { maxDurationMs: 500 } });
    expectFailure(r, 'QUERY_TIMEOUT', 408);
    expect(r.body.error.details).toMatchObject({ state: 'FAILED' });
    expect(r.body.error.details.queryId).toMatch(/^qry_/);
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 0)).toBe(true);
    expect(stagingEntries(server)).toEqual([]);
    // Polling the failed query answers with the same error.
    const p = await server.request(`/api/queries/${r.body.error.details.queryId}`);
    expectFailure(p, 'QUERY_TIMEOUT', 408);
  });

  it('a timeout of a query with bound parameters is QUERY_TIMEOUT too', async () => {
    const tag = marker();
    const r = await runQuery(server, { sql: `select pg_sleep($1::float8) /* ${tag} */`, params: [5], limits: { maxDurationMs: 500 } });
    expectFailure(r, 'QUERY_TIMEOUT', 408);
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 0)).toBe(true);
  });

  it('keeps the rows that arrived before the cap as a PREFIX bounded by maxDuration', async () => {
    const tag = marker();
    const r = await runQuery(server, {
      sql: `select g, pg_sleep(0.2) /* ${tag} */ from generate_series(1, 100) g`,
      previewRows: 5,
      limits: { maxDurationMs: 1500 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const data = r.body.data;
    expect(data.state).toBe('SUCCEEDED');
    expect(data.completeness).toMatchObject({ status: 'INCOMPLETE', totalRows: null, boundedBy: 'maxDuration', limitSetBy: 'request' });
    expect(data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'PREFIX' });
    const kept = data.artifact.rowCount as number;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(100);
    expect(data.preview.rows).toEqual(
      Array.from({ length: Math.min(kept, 5) }, (_, i) => [i + 1, '']),
    );
    const all = await readAll(server, data.artifact.id);
    expect(all.rows).toEqual(Array.from({ length: kept }, (_, i) => [i + 1, '']));
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 0)).toBe(true);
  });
});

describe('visibility', () => {
  it.skipIf(!cancellable)(needsCancel('another principal can neither poll nor cancel a query'), async () => {
    const tag = marker();
    const r = await runQuery(server, { sql: `select pg_sleep(30) /* ${tag} */`, waitMs: 0 }, TOKENS.analyst);
    expect(r.status).toBe(202);
    const id = r.body.data.queryId;
    const poll = await server.request(`/api/queries/${id}`, { token: TOKENS.other });
    expectFailure(poll, 'NOT_FOUND', 404);
    const cancel = await server.request(`/api/queries/${id}/cancel`, { method: 'POST', token: TOKENS.other });
    expectFailure(cancel, 'NOT_FOUND', 404);
    // The other principal's cancel did nothing: the query still runs for its owner.
    const own = await server.request(`/api/queries/${id}`, { token: TOKENS.analyst });
    expect(own.status).toBe(202);
    expect(own.body.data.state).toBe('RUNNING');
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 1)).toBe(true);
    const c = await server.request(`/api/queries/${id}/cancel`, { method: 'POST', token: TOKENS.analyst });
    expect(c.body.data.state).toBe('CANCELLED');
    expect(await eventually(async () => (await activeBackendsWith(server, tag)) === 0)).toBe(true);
  });

  it('an unknown query id is NOT_FOUND, for polls and cancels', async () => {
    expectFailure(await server.request('/api/queries/qry_doesnotexist'), 'NOT_FOUND', 404);
    expectFailure(await server.request('/api/queries/qry_doesnotexist?waitMs=100'), 'NOT_FOUND', 404);
    expectFailure(await server.request('/api/queries/qry_doesnotexist/cancel', { method: 'POST' }), 'NOT_FOUND', 404);
  });

  it('a request without a token is UNAUTHORIZED', async () => {
    expectFailure(await server.request('/api/queries/qry_doesnotexist', { token: null }), 'UNAUTHORIZED', 401);
  });
});
