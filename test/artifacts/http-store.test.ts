/**
 * The store's routes over HTTP against the real PostgreSQL: aggregates equal
 * to PostgreSQL's own (exact sums), downloads in every format equal to the
 * read API, sessions, usage, quota denial with the preview kept, expiry.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const SCHEMA = 'stest_http';
let server: TestServer;
let artifactId: string;

beforeAll(async () => {
  server = await startTestServer();
  await server.sql.query(`drop schema if exists ${SCHEMA} cascade; create schema ${SCHEMA}`);
  await server.sql.query(`create table ${SCHEMA}.sales as
    select g::int8 as id, (array['north','south','east'])[1 + g % 3] as region,
           (g * 1.37)::numeric(14,2) as amount, 9007199254740993::int8 + g as big, case when g % 10 = 0 then null else g % 5 end as bucket
      from generate_series(1, 4000) g`);
  const r = await server.request('/api/queries', { body: { sql: `select * from ${SCHEMA}.sales order by id`, previewRows: 5 } });
  artifactId = r.body.data.artifact.id;
});
afterAll(async () => {
  await server.sql.query(`drop schema if exists ${SCHEMA} cascade`).catch(() => undefined);
  await server?.stop();
});

async function readAll(body: Record<string, unknown> = {}): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  let cursor: string | undefined;
  do {
    const r = await server.request(`/api/artifacts/${artifactId}/read`, { body: { ...body, limit: 1000, ...(cursor ? { cursor } : {}) } });
    expect(r.status).toBe(200);
    rows.push(...r.body.data.rows);
    cursor = r.body.data.nextCursor ?? undefined;
  } while (cursor);
  return rows;
}

describe('aggregate', () => {
  it('matches PostgreSQL, with exact decimal and int8 sums as strings', async () => {
    const r = await server.request(`/api/artifacts/${artifactId}/aggregate`, {
      body: {
        groupBy: ['region'],
        metrics: [{ fn: 'count' }, { fn: 'sum', column: 'amount', as: 'total' }, { fn: 'sum', column: 'big' }, { fn: 'count_distinct', column: 'bucket' }, { fn: 'min', column: 'amount' }, { fn: 'max', column: 'id' }],
        sort: [{ column: 'total', direction: 'desc' }],
      },
    });
    expect(r.status).toBe(200);
    const truth = await server.sql.query(`select region, count(*)::text c, sum(amount)::text total, sum(big)::text big, count(distinct bucket)::text d, min(amount)::text mn, max(id)::text mx
      from ${SCHEMA}.sales group by region order by sum(amount) desc`);
    expect(r.body.data.columns.map((c: { name: string }) => c.name)).toEqual(['region', 'count', 'total', 'sum_big', 'count_distinct_bucket', 'min_amount', 'max_id']);
    expect(r.body.data.rows).toEqual(truth.map((t) => [t.region, t.c, t.total, t.big, t.d, t.mn, t.mx]));
  });

  it('applies filters, limits the groups and says so', async () => {
    const r = await server.request(`/api/artifacts/${artifactId}/aggregate`, {
      body: { groupBy: ['bucket'], metrics: [{ fn: 'count' }], filters: [{ column: 'region', op: 'eq', value: 'north' }], limit: 2 },
    });
    expect(r.body.data.rows).toHaveLength(2);
    expect(r.body.data.truncated).toBe(true);
    const [truth] = await server.sql.query(`select count(*)::text c from ${SCHEMA}.sales where region = 'north' and bucket = 0`);
    expect(r.body.data.rows[0]).toEqual([0, truth!.c]);
  });

  it('refuses sums of text, unknown columns and duplicate output names', async () => {
    const bad = [
      { metrics: [{ fn: 'sum', column: 'region' }] },
      { metrics: [{ fn: 'sum', column: 'nope' }] },
      { metrics: [{ fn: 'count' }, { fn: 'count' }] },
      { metrics: [{ fn: 'median', column: 'id' }] },
    ];
    for (const body of bad) {
      const r = await server.request(`/api/artifacts/${artifactId}/aggregate`, { body });
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION_ERROR');
    }
  });
});

describe('download', () => {
  it('streams JSONL rows identical to the read API rows', async () => {
    const r = await fetch(`${server.sluice.url}/api/artifacts/${artifactId}/download?format=jsonl`, { headers: { 'x-token': TOKENS.admin } });
    expect(r.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await r.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(await readAll());
  });

  it('streams one valid Parquet file and a CSV with a header', async () => {
    const parquet = await fetch(`${server.sluice.url}/api/artifacts/${artifactId}/download?format=parquet`, { headers: { 'x-token': TOKENS.admin } });
    const file = join(server.dataDir, 'check.parquet');
    writeFileSync(file, Buffer.from(await parquet.arrayBuffer()));
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const reader = await duck.runAndReadAll(`select count(*)::int, sum(amount)::varchar from read_parquet('${file}')`);
    const [truth] = await server.sql.query(`select sum(amount)::text s from ${SCHEMA}.sales`);
    expect(reader.getRowsJS()[0]).toEqual([4000, truth!.s]);
    const csv = await (await fetch(`${server.sluice.url}/api/artifacts/${artifactId}/download?format=csv`, { headers: { 'x-token': TOKENS.admin } })).text();
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('id,region,amount,big,bucket');
    expect(lines).toHaveLength(4001);
  });

  it('answers HEAD with the headers a GET has and keeps no file behind', async () => {
    const downloads = join(server.dataDir, 'artifacts', 'downloads');
    for (const format of ['csv', 'jsonl', 'parquet']) {
      const r = await fetch(`${server.sluice.url}/api/artifacts/${artifactId}/download?format=${format}`, { method: 'HEAD', headers: { 'x-token': TOKENS.admin } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-disposition')).toBe(`attachment; filename="${artifactId}.${format}"`);
      expect(await r.text()).toBe('');
    }
    // The file a CSV or JSONL answer is streamed from goes as soon as the answer is, whether or not a body was sent.
    await expect.poll(() => (existsSync(downloads) ? readdirSync(downloads) : []), { timeout: 5000 }).toEqual([]);
  });

  it('is re-authorized: another principal gets NOT_FOUND, a bad format VALIDATION_ERROR', async () => {
    const other = await server.request(`/api/artifacts/${artifactId}/download?format=csv`, { token: TOKENS.other });
    expect(other.body.errorCode).toBe('NOT_FOUND');
    const agg = await server.request(`/api/artifacts/${artifactId}/aggregate`, { token: TOKENS.other, body: { metrics: [{ fn: 'count' }] } });
    expect(agg.body.errorCode).toBe('NOT_FOUND');
    const bad = await server.request(`/api/artifacts/${artifactId}/download?format=xlsx`);
    expect(bad.body.errorCode).toBe('VALIDATION_ERROR');
  });
});

describe('sessions and usage', () => {
  it('copies references into a new session, retires only that session, and counts usage', async () => {
    const q = await server.request('/api/queries', { token: TOKENS.analyst, body: { sql: `select * from ${SCHEMA}.sales`, materialize: 'always', sessionId: 'work' } });
    const id = q.body.data.artifact.id as string;
    const before = (await server.request('/api/usage', { token: TOKENS.analyst })).body.data;
    expect(before.workspace).toBeUndefined();
    const copy = await server.request('/api/sessions/work/copy', { token: TOKENS.analyst, body: { targetSessionId: 'shared' } });
    expect(copy.body.data.mapping).toEqual([{ sourceArtifactId: id, targetArtifactId: expect.stringMatching(/^art_/) }]);
    const after = (await server.request('/api/usage', { token: TOKENS.analyst })).body.data;
    expect(after.principal.logicalBytes).toBe(before.principal.logicalBytes * 2);
    const admin = (await server.request('/api/usage', { token: TOKENS.admin })).body.data;
    expect(admin.workspace.physicalBytes).toBeGreaterThan(0);
    const retired = await server.request('/api/sessions/work', { method: 'DELETE', token: TOKENS.analyst });
    expect(retired.body.data).toEqual({ releasedArtifacts: 1, releasedBytes: q.body.data.artifact.sizeBytes });
    expect((await server.request(`/api/artifacts/${id}`, { token: TOKENS.analyst })).body.errorCode).toBe('NOT_FOUND');
    const copied = copy.body.data.mapping[0].targetArtifactId;
    expect((await server.request(`/api/artifacts/${copied}`, { token: TOKENS.analyst })).body.data.sessionId).toBe('shared');
    const listed = await server.request('/api/artifacts?sessionId=shared', { token: TOKENS.analyst });
    expect(listed.body.data.artifacts.map((a: { id: string }) => a.id)).toEqual([copied]);
  });
});

describe('listing', () => {
  it('refuses a listing cursor it did not issue', async () => {
    const r = await server.request('/api/artifacts?cursor=art_not_a_real_one');
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('INVALID_CURSOR');
  });
});

describe('quota and expiry', () => {
  it('denies the artifact over quota and still returns the preview', async () => {
    const small = await startTestServer({ SLUICE_PRINCIPAL_QUOTA_BYTES: '1000' });
    try {
      const r = await small.request('/api/queries', { body: { sql: `select * from ${SCHEMA}.sales order by id`, previewRows: 3 } });
      expect(r.status).toBe(200);
      expect(r.body.data.artifact).toMatchObject({ decision: 'DENIED', reason: 'QUOTA_EXCEEDED' });
      expect(r.body.data.preview.rows).toHaveLength(3);
      expect(r.body.data.completeness.status).toBe('INCOMPLETE');
    } finally {
      await small.stop();
    }
  });

  it('answers ARTIFACT_EXPIRED once the TTL has passed', async () => {
    const brief = await startTestServer({ SLUICE_ARTIFACT_TTL_S: '1' });
    try {
      const r = await brief.request('/api/queries', { body: { sql: `select * from ${SCHEMA}.sales`, materialize: 'always' } });
      const id = r.body.data.artifact.id;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const read = await brief.request(`/api/artifacts/${id}/read`, { body: {} });
      expect(read.status).toBe(410);
      expect(read.body.errorCode).toBe('ARTIFACT_EXPIRED');
    } finally {
      await brief.stop();
    }
  });
});
