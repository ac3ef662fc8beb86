/**
 * Two replicas on one PostgreSQL catalog count and keep together what one
 * process counts and keeps alone: the per-principal rate limit (requests
 * split between the replicas are refused past the limit, where each
 * replica alone would accept its share), the cap on concurrent queries
 * (slow queries on both replicas fill it), and saved visualizations (saved
 * through one, read and rendered through the other, never shown to another
 * principal). Waits are bounded polls for a state in the catalog.
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

const LIMIT = 20;
const CAP = 2;
const TOKENS = { limited: 'tok-limited-000000001', runner: 'tok-runner-0000000001', charter: 'tok-charter-000000001', other: 'tok-other-00000000001' } as const;
type Who = keyof typeof TOKENS;

const MODEL = `
explores:
  - name: nums
    datasource: default
    sql: "select g % 3 as grp, g as amount from generate_series(1, 30) g"
    dimensions:
      - { name: grp, type: number }
    metrics:
      - { name: total, type: sum, sql: amount }
`;

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

interface Replica {
  sluice: Sluice;
  dataDir: string;
  call(who: Who, path: string, body?: unknown): Promise<Answer>;
}

/** Polls `probe` until it holds; fails after `ms` rather than waiting forever. */
async function until(what: string, probe: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(PG_SKIP_REASON !== null)(skipNote(PG_SKIP_REASON !== null, 'limits and visualizations shared by replicas', PG_SKIP_REASON ?? ''), () => {
  const database = `sluice_limits_${randomBytes(4).toString('hex')}`;
  let admin: AdminSql;
  let catalogSql: AdminSql;
  let s3: TestS3Server;
  let modelsDir: string;
  const replicas: Replica[] = [];

  async function startReplica(catalogUrl: string): Promise<Replica> {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-limits-'));
    const sluice = await startSluice(
      loadConfig({
        PORT: '0',
        SLUICE_DATA_DIR: dataDir,
        SLUICE_MODELS_DIR: modelsDir,
        DATABASE_URL: PG_URL!,
        SLUICE_CATALOG_URL: catalogUrl,
        SLUICE_ARTIFACT_URL: `s3://${s3.bucket}/limits`,
        SLUICE_S3_ENDPOINT: s3.endpoint,
        SLUICE_S3_FORCE_PATH_STYLE: 'true',
        SLUICE_RATE_LIMIT_PER_MINUTE: String(LIMIT),
        SLUICE_MAX_CONCURRENT_QUERIES: String(CAP),
        SLUICE_TOKENS: JSON.stringify(Object.entries(TOKENS).map(([principal, token]) => ({ token, principal }))),
      }),
      quietLogger,
    );
    await sluice.ready;
    const call = async (who: Who, path: string, body?: unknown): Promise<Answer> => {
      const response = await fetch(`${sluice.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'x-token': TOKENS[who], ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      const json = response.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as unknown) : null;
      return { status: response.status, body: json, text, headers: response.headers };
    };
    return { sluice, dataDir, call };
  }

  beforeAll(async () => {
    admin = openAdminSql(PG_URL!);
    await admin.query(`CREATE DATABASE ${database}`);
    const catalogUrl = new URL(PG_URL!);
    catalogUrl.pathname = `/${database}`;
    catalogSql = openAdminSql(catalogUrl.toString());
    modelsDir = mkdtempSync(join(tmpdir(), 'sluice-limits-models-'));
    writeFileSync(join(modelsDir, 'nums.yml'), MODEL);
    s3 = await startS3Server('sluice-limits');
    replicas.push(...(await Promise.all([startReplica(catalogUrl.toString()), startReplica(catalogUrl.toString())])));
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) {
      await r.sluice.stop();
      rmSync(r.dataDir, { recursive: true, force: true });
    }
    if (modelsDir !== undefined) rmSync(modelsDir, { recursive: true, force: true });
    await s3?.close();
    await catalogSql?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  it('refuse requests past the per-principal rate limit when they are split between the replicas', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const onA: Answer[] = [];
    for (let i = 0; i < 12; i++) onA.push(await a.call('limited', '/api/datasources'));
    // Each replica alone would accept all 12 of its requests: the limit is 20.
    expect(onA.map((r) => r.status)).toEqual(Array(12).fill(200));
    await until('the first replica to send its counts', async () => {
      const [row] = await catalogSql.query("SELECT coalesce(sum(requests), 0)::int AS n FROM sluice.request_counts WHERE principal = 'limited' AND scope = 'api'");
      return row!.n === 12;
    });
    const onB: Answer[] = [];
    for (let i = 0; i < 12; i++) onB.push(await b.call('limited', '/api/datasources'));
    const refused = onB.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.body.errorCode).toBe('RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Refused only once the limit was reached together; accepted ones come first.
    const accepted = onB.filter((r) => r.status === 200).length;
    expect(12 + accepted).toBeGreaterThanOrEqual(LIMIT);
    expect(onB.slice(0, accepted).every((r) => r.status === 200)).toBe(true);
    // Another principal has its own budget.
    expect((await b.call('other', '/api/datasources')).status).toBe(200);
  });

  it('cap concurrent queries of a principal across replicas, and admit again once they are cancelled', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const running = async () => (await catalogSql.query<{ n: number }>("SELECT count(*)::int AS n FROM sluice.queries WHERE principal = 'runner' AND state = 'RUNNING'"))[0]!.n;
    const first = await a.call('runner', '/api/queries', { sql: 'SELECT pg_sleep(60) AS one', waitMs: 0 });
    const second = await b.call('runner', '/api/queries', { sql: 'SELECT pg_sleep(60) AS two', waitMs: 0 });
    expect([first.status, second.status]).toEqual([202, 202]);
    // Each replica runs one, below the cap of 2 on its own: only counting both refuses a third.
    for (const replica of [a, b]) {
      const third = await replica.call('runner', '/api/queries', { sql: 'SELECT 1 AS three' });
      expect(third.status).toBe(429);
      expect(third.body.errorCode).toBe('RATE_LIMITED');
      expect(third.body.error.message).toContain(`already has ${CAP} queries running`);
    }
    expect(await running()).toBe(CAP);
    expect((await b.call('runner', `/api/queries/${first.body.data.queryId}/cancel`, {})).body.data.state).toBe('CANCELLED');
    expect((await a.call('runner', `/api/queries/${second.body.data.queryId}/cancel`, {})).body.data.state).toBe('CANCELLED');
    await until('both cancels to be written to the catalog', async () => (await running()) === 0);
    const after = await b.call('runner', '/api/queries', { sql: 'SELECT 1 AS four' });
    expect(after.status).toBe(200);
    expect(after.body.data.preview.rows).toEqual([[1]]);
  });

  it('read and render a visualization saved through one replica through the other, for its principal only', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const intent = { type: 'metric', query: { explore: 'nums', dimensions: ['nums.grp'], metrics: ['nums.total'] } };
    const saved = await a.call('charter', '/api/semantic/visualizations', { intent, chart: { type: 'bar', x: 'nums.grp', y: ['nums.total'] }, title: 'Totals by group' });
    expect(saved.status, saved.text).toBe(200);
    const id = saved.body.data.id as string;
    const read = await b.call('charter', `/api/semantic/visualizations/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id, title: 'Totals by group', intent, chart: { type: 'bar', x: 'nums.grp', y: ['nums.total'] } });
    const svg = await b.call('charter', `/api/semantic/visualizations/${id}/render.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toContain('image/svg+xml');
    expect(svg.text).toMatch(/^<svg/);
    expect(svg.text).toContain('Totals by group');
    for (const replica of [a, b]) {
      for (const path of [`/api/semantic/visualizations/${id}`, `/api/semantic/visualizations/${id}/render.svg`]) {
        const other = await replica.call('other', path);
        expect(other.status).toBe(404);
        expect(other.body.errorCode).toBe('NOT_FOUND');
      }
    }
  });
});
