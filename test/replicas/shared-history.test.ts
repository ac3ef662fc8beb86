/**
 * Two replicas on one PostgreSQL catalog keep one query history and one
 * list of saved visualizations: queries run through either replica are
 * listed, newest first and paged, through both; a cursor handed out by one
 * is taken by the other; another principal's never appear; a
 * visualization saved through one is listed and deleted through the other.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { quietLogger } from '../../src/logger.ts';
import { startSluice, type Sluice } from '../../src/server.ts';
import { PG_SKIP_REASON, PG_URL } from '../catalog/pg-test-schemas.ts';
import { openAdminSql, type AdminSql } from '../helpers/admin-sql.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { skipNote } from '../helpers/skip-note.ts';

const TOKENS = { alice: 'tok-history-alice-0001', bob: 'tok-history-bob-000001' } as const;
type Who = keyof typeof TOKENS;

const MODEL = `
explores:
  - name: nums
    datasource: default
    sql: "select g % 3 as grp, g as amount from generate_series(1, 30) g"
    dimensions: [{ name: grp, type: number }]
    metrics: [{ name: total, type: sum, sql: amount }]
`;

interface Replica {
  sluice: Sluice;
  dataDir: string;
  call(who: Who, path: string, body?: unknown, method?: string): Promise<{ status: number; body: any }>;
}

describe.skipIf(PG_SKIP_REASON !== null)(skipNote(PG_SKIP_REASON !== null, 'history shared by replicas', PG_SKIP_REASON ?? ''), () => {
  const database = `sluice_history_${randomBytes(4).toString('hex')}`;
  let admin: AdminSql;
  let s3: TestS3Server;
  let modelsDir: string;
  const replicas: Replica[] = [];

  async function startReplica(catalogUrl: string): Promise<Replica> {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-history-'));
    const sluice = await startSluice(
      loadConfig({
        PORT: '0',
        SLUICE_DATA_DIR: dataDir,
        SLUICE_MODELS_DIR: modelsDir,
        DATABASE_URL: PG_URL!,
        SLUICE_CATALOG_URL: catalogUrl,
        SLUICE_ARTIFACT_URL: `s3://${s3.bucket}/history`,
        SLUICE_S3_ENDPOINT: s3.endpoint,
        SLUICE_S3_FORCE_PATH_STYLE: 'true',
        SLUICE_RATE_LIMIT_PER_MINUTE: '1000000',
        SLUICE_TOKENS: JSON.stringify(Object.entries(TOKENS).map(([principal, token]) => ({ token, principal }))),
      }),
      quietLogger,
    );
    await sluice.ready;
    const call = async (who: Who, path: string, body?: unknown, method?: string) => {
      const response = await fetch(`${sluice.url}${path}`, {
        method: method ?? (body === undefined ? 'GET' : 'POST'),
        headers: { 'x-token': TOKENS[who], ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    return { sluice, dataDir, call };
  }

  beforeAll(async () => {
    admin = openAdminSql(PG_URL!);
    await admin.query(`CREATE DATABASE ${database}`);
    const catalogUrl = new URL(PG_URL!);
    catalogUrl.pathname = `/${database}`;
    modelsDir = mkdtempSync(join(tmpdir(), 'sluice-history-models-'));
    writeFileSync(join(modelsDir, 'nums.yml'), MODEL);
    s3 = await startS3Server('sluice-history');
    replicas.push(...(await Promise.all([startReplica(catalogUrl.toString()), startReplica(catalogUrl.toString())])));
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) {
      await r.sluice.stop();
      rmSync(r.dataDir, { recursive: true, force: true });
    }
    if (modelsDir !== undefined) rmSync(modelsDir, { recursive: true, force: true });
    await s3?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  it('list one history through either replica, whichever ran each query, paged across them', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const ids: string[] = [];
    for (const [i, replica] of [a, b, a, b].entries()) {
      const r = await replica.call('alice', '/api/queries', { sql: `SELECT ${i} AS step`, ...(i === 1 ? { materialize: 'always' } : {}) });
      expect(r.status).toBe(200);
      ids.push(r.body.data.queryId);
      if (i === 1) expect(r.body.data.artifact.decision).toBe('CREATED');
    }
    const bobs = await b.call('bob', '/api/queries', { sql: 'SELECT 99 AS bob_only' });
    const expected = [...ids].reverse();
    // Each replica waits only for its own writes: the other's last write may land a moment later.
    for (const replica of [a, b]) {
      let listed: any[] = [];
      for (let tries = 0; tries < 100; tries++) {
        listed = (await replica.call('alice', '/api/queries?limit=10')).body.data.items;
        if (listed.length === 4 && listed.every((i: any) => i.state === 'SUCCEEDED')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(listed.map((i: any) => i.queryId)).toEqual(expected);
      expect(listed.map((i: any) => i.sql)).toEqual(['SELECT 3 AS step', 'SELECT 2 AS step', 'SELECT 1 AS step', 'SELECT 0 AS step']);
      expect(listed[2].artifactId).toMatch(/^art_/);
    }
    // A cursor handed out by one replica pages on through the other.
    const first = await a.call('alice', '/api/queries?limit=3');
    const rest = await b.call('alice', `/api/queries?limit=3&cursor=${encodeURIComponent(first.body.data.nextCursor)}`);
    expect([...first.body.data.items, ...rest.body.data.items].map((i: any) => i.queryId)).toEqual(expected);
    expect(rest.body.data.nextCursor).toBeNull();
    // Never another principal's, through either replica.
    for (const replica of [a, b]) {
      const alices = (await replica.call('alice', '/api/queries?limit=100')).body.data.items;
      expect(alices.some((i: any) => i.queryId === bobs.body.data.queryId)).toBe(false);
    }
    expect((await a.call('bob', '/api/queries')).body.data.items.map((i: any) => i.queryId)).toEqual([bobs.body.data.queryId]);
  });

  it('list and delete a visualization saved through the other replica, for its principal only', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const intent = { type: 'metric', query: { explore: 'nums', dimensions: ['nums.grp'], metrics: ['nums.total'] } };
    const saved = await a.call('alice', '/api/semantic/visualizations', { intent, chart: { type: 'bar', x: 'nums.grp', y: ['nums.total'] }, title: 'Totals' });
    expect(saved.status).toBe(200);
    const id = saved.body.data.id as string;
    expect((await b.call('alice', '/api/semantic/visualizations')).body.data.visualizations).toEqual([{ id, title: 'Totals', createdAt: expect.any(String) }]);
    expect((await b.call('bob', '/api/semantic/visualizations')).body.data.visualizations).toEqual([]);
    expect((await b.call('bob', `/api/semantic/visualizations/${id}`, undefined, 'DELETE')).body.errorCode).toBe('NOT_FOUND');
    expect((await b.call('alice', `/api/semantic/visualizations/${id}`, undefined, 'DELETE')).body.data).toEqual({ id, deleted: true });
    expect((await a.call('alice', `/api/semantic/visualizations/${id}`)).body.errorCode).toBe('NOT_FOUND');
    expect((await a.call('alice', '/api/semantic/visualizations')).body.data.visualizations).toEqual([]);
  });
});
