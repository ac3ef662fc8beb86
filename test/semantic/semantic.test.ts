/**
 * The semantic layer against the real PostgreSQL: merges checked against
 * hand-written SQL, every invalid intent refused before any statement is
 * submitted (the server's submission counter stays put), charts stored as
 * intents and rendered on the server, also after a restart.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startSluice } from '../../src/server.ts';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { quietLogger } from '../../src/logger.ts';
import { pgDialect } from '../../src/datasources/postgres/pg-dialect.ts';
import { SemanticCatalog } from '../../src/semantic/catalog.ts';
import { compileIntent } from '../../src/semantic/compile.ts';
import { SemanticIntent } from '../../src/semantic/intent.ts';
import { loadModels } from '../../src/semantic/load-models.ts';

const S = 'semtest';
const MODEL = `
explores:
  - name: sales
    datasource: default
    table: ${S}.sales
    dimensions:
      - { name: region, type: string }
      - { name: channel, type: string }
      - { name: sold_at, type: timestamp, timeGrains: [month, year] }
      - { name: sold_on, type: date, sql: "sold_at::date", timeGrains: [month] }
      - { name: quantity, type: number }
    metrics:
      - { name: revenue, type: sum, sql: amount }
      - { name: sale_count, type: count }
  - name: returns
    datasource: default
    table: ${S}.returns
    dimensions:
      - { name: region, type: string }
      - { name: returned_at, type: timestamp, timeGrains: [month, day] }
      - { name: quantity, type: number }
    metrics:
      - { name: refunded, type: sum, sql: amount }
  - name: secret
    datasource: default
    table: ${S}.sales
    access: { roles: [admin] }
    dimensions: [{ name: region, type: string }]
    metrics: [{ name: revenue, type: sum, sql: amount }]
  - name: guarded
    datasource: default
    table: ${S}.sales
    requiredFilters: [{ field: guarded.sold_at, op: gte }]
    dimensions: [{ name: sold_at, type: timestamp }]
    metrics: [{ name: revenue, type: sum, sql: amount }]
  - name: big_sales
    datasource: default
    sql: "select * from ${S}.sales where amount >= {{min_amount}}"
    parameters: [{ name: min_amount, type: number }]
    dimensions: [{ name: region, type: string }]
    metrics: [{ name: revenue, type: sum, sql: amount }]
`;

let server: TestServer;
let modelsDir: string;

const mergeIntent = (extra: Record<string, unknown> = {}) => ({
  type: 'merge',
  query: {
    sources: [
      { explore: 'sales', dimensions: ['sales.region', 'sales.sold_at_month'], metrics: ['sales.revenue'] },
      { explore: 'returns', dimensions: ['returns.region', 'returns.returned_at_month'], metrics: ['returns.refunded'] },
    ],
    joinOn: [
      { left: 'sales.region', right: 'returns.region' },
      { left: 'sales.sold_at_month', right: 'returns.returned_at_month' },
    ],
    sorts: [{ field: 'sales.revenue', direction: 'desc' }],
    ...extra,
  },
});

beforeAll(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'sluice-models-'));
  writeFileSync(join(modelsDir, 'test.yml'), MODEL);
  server = await startTestServer({ SLUICE_MODELS_DIR: modelsDir });
  await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
  await server.sql.query(`create table ${S}.sales as select g as id, (array['north','south','east'])[1 + g % 3] as region, (array['web','shop'])[1 + g % 2] as channel,
    timestamptz '2025-01-01' + (g * 7 % 365) * interval '1 day' as sold_at, (g % 9)::numeric(12,2) + 0.25 as amount, g % 4 as quantity from generate_series(1, 3000) g`);
  await server.sql.query(`create table ${S}.returns as select g as id, (array['north','south','east','west'])[1 + g % 4] as region,
    timestamptz '2025-01-01' + (g * 11 % 365) * interval '1 day' as returned_at, (g % 5)::numeric(12,2) + 0.5 as amount, g % 4 as quantity from generate_series(1, 400) g`);
  // Rows without a region on both sides: a merge makes one row of them.
  await server.sql.query(`insert into ${S}.sales values (9001, null, 'web', '2025-02-03', 3.00, 1), (9002, null, 'shop', '2025-02-20', 4.00, 2)`);
  await server.sql.query(`insert into ${S}.returns values (9001, null, '2025-02-10', 1.25, 1)`);
});
afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
  await server?.stop();
  rmSync(modelsDir, { recursive: true, force: true });
});

async function semantic(intent: unknown, token: string = TOKENS.analyst, extra: Record<string, unknown> = {}) {
  return server.request('/api/semantic/query', { token, body: { intent, previewRows: 500, ...extra } });
}

describe('explores', () => {
  it('lists the explores the caller may use, with field ids', async () => {
    const r = await server.request('/api/semantic/explores', { token: TOKENS.analyst });
    const names = r.body.data.explores.map((e: any) => e.name);
    expect(names).toEqual(['sales', 'returns', 'guarded', 'big_sales']);
    const sales = r.body.data.explores[0];
    expect(sales.fields.map((f: any) => f.id)).toContain('sales.sold_at_month');
    const admin = await server.request('/api/semantic/explores', { token: TOKENS.admin });
    expect(admin.body.data.explores.map((e: any) => e.name)).toContain('secret');
    const reader = await server.request('/api/semantic/explores', { token: TOKENS.reader });
    expect(reader.body.errorCode).toBe('FORBIDDEN');
  });
});

describe('merge', () => {
  it('returns source-correct values, one statement, executed once (the row cap of its sources inside it)', async () => {
    const before = server.sluice.queriesSubmitted();
    const r = await semantic(mergeIntent());
    expect(r.status).toBe(200);
    expect(server.sluice.queriesSubmitted()).toBe(before + 1);
    expect(r.body.data.fields).toEqual([
      { id: 'sales.region', source: 0, kind: 'dimension' },
      { id: 'sales.sold_at_month', source: 0, kind: 'dimension' },
      { id: 'sales.revenue', source: 0, kind: 'metric' },
      { id: 'returns.refunded', source: 1, kind: 'metric' },
    ]);
    const truth = await server.sql.query(`
      with s as (select region, date_trunc('month', sold_at) m, sum(amount) revenue from ${S}.sales group by 1, 2),
           r as (select region, date_trunc('month', returned_at) m, sum(amount) refunded from ${S}.returns group by 1, 2)
      select s.region, s.m, s.revenue::text revenue, r.refunded::text refunded from s left join r on s.region is not distinct from r.region and s.m = r.m
      order by s.revenue desc nulls last, 1, 2`);
    const got = r.body.data.preview.rows.map((row: any[]) => `${row[0]}|${row[1]}|${row[2]}|${row[3]}`).sort();
    const want = truth.map((t) => `${t.region}|${new Date(t.m).toISOString().replace('.000Z', '.000000Z')}|${t.revenue}|${t.refunded}`).sort();
    expect(got).toEqual(want);
  });

  it('applies limit to the merged result only: source totals do not change', async () => {
    const full = await semantic(mergeIntent());
    const limited = await semantic(mergeIntent({ limit: 2 }));
    expect(limited.body.data.preview.rows).toEqual(full.body.data.preview.rows.slice(0, 2));
  });

  const refused: [string, unknown, string, number | null, string | null][] = [
    ['a join of different grain', mergeIntent({ sources: [mergeIntent().query.sources[0], { explore: 'returns', dimensions: ['returns.region', 'returns.returned_at_day'], metrics: ['returns.refunded'] }], joinOn: [{ left: 'sales.region', right: 'returns.region' }, { left: 'sales.sold_at_month', right: 'returns.returned_at_day' }] }), 'SEMANTIC_VALIDATION_ERROR', 1, 'returns.returned_at_day'],
    ['a join of different type', mergeIntent({ joinOn: [{ left: 'sales.region', right: 'returns.returned_at_month' }, { left: 'sales.sold_at_month', right: 'returns.region' }] }), 'SEMANTIC_VALIDATION_ERROR', 1, 'returns.returned_at_month'],
    ['a fan-out (a dimension that is not a key)', mergeIntent({ sources: [{ explore: 'sales', dimensions: ['sales.region', 'sales.channel'], metrics: ['sales.revenue'] }, { explore: 'returns', dimensions: ['returns.region'], metrics: ['returns.refunded'] }], joinOn: [{ left: 'sales.region', right: 'returns.region' }] }), 'SEMANTIC_VALIDATION_ERROR', 0, 'sales.channel'],
    ['an unknown field (never guessed)', { type: 'metric', query: { explore: 'sales', dimensions: ['sales.regoin'], metrics: ['sales.revenue'] } }, 'SEMANTIC_VALIDATION_ERROR', null, 'sales.regoin'],
    ['an explore the caller may not use', { type: 'metric', query: { explore: 'secret', dimensions: ['secret.region'], metrics: ['secret.revenue'] } }, 'NOT_FOUND', null, null],
    ['a missing required filter', { type: 'metric', query: { explore: 'guarded', dimensions: [], metrics: ['guarded.revenue'] } }, 'SEMANTIC_VALIDATION_ERROR', null, 'guarded.sold_at'],
    ['a missing parameter', { type: 'metric', query: { explore: 'big_sales', dimensions: ['big_sales.region'], metrics: ['big_sales.revenue'] } }, 'SEMANTIC_VALIDATION_ERROR', null, 'min_amount'],
    ['three sources', mergeIntent({ sources: [mergeIntent().query.sources[0], mergeIntent().query.sources[1], mergeIntent().query.sources[1]] }), 'SEMANTIC_VALIDATION_ERROR', null, null],
  ];
  for (const [name, intent, code, source, field] of refused) {
    it(`refuses ${name}, naming source and field, and runs no query`, async () => {
      const before = server.sluice.queriesSubmitted();
      const r = await semantic(intent);
      expect(r.body.errorCode).toBe(code);
      if (code === 'SEMANTIC_VALIDATION_ERROR') {
        expect(r.status).toBe(400);
        expect(r.body.error.details.source).toBe(source);
        expect(r.body.error.details.field).toBe(field);
      }
      expect(server.sluice.queriesSubmitted()).toBe(before);
    });
  }

  it('binds filter and parameter values, never splicing them', async () => {
    const r = await semantic({ type: 'metric', query: { explore: 'big_sales', dimensions: ['big_sales.region'], metrics: ['big_sales.revenue'], filters: [{ field: 'big_sales.region', op: 'in', value: ["east' or '1'='1", 'east'] }] }, parameters: { min_amount: 8 } });
    expect(r.status).toBe(200);
    const [truth] = await server.sql.query(`select sum(amount)::text s from ${S}.sales where amount >= 8 and region = 'east'`);
    expect(truth!.s).not.toBeNull();
    expect(r.body.data.preview.rows).toEqual([['east', truth!.s]]);
    const required = await semantic({ type: 'metric', query: { explore: 'guarded', dimensions: [], metrics: ['guarded.revenue'], filters: [{ field: 'guarded.sold_at', op: 'gte', value: '2025-06-01T00:00:00Z' }] } });
    const [g] = await server.sql.query(`select sum(amount)::text s from ${S}.sales where sold_at >= '2025-06-01T00:00:00Z'`);
    expect(required.body.data.preview.rows).toEqual([[g!.s]]);
  });
});

describe('merges as Lightdash merges (on PostgreSQL)', () => {
  const byRegion = (extra: Record<string, unknown> = {}) => ({
    type: 'merge',
    query: {
      sources: [
        { explore: 'sales', dimensions: ['sales.region'], metrics: ['sales.revenue'] },
        { explore: 'returns', dimensions: ['returns.region'], metrics: ['returns.refunded'] },
      ],
      joinOn: [{ left: 'sales.region', right: 'returns.region' }],
      ...extra,
    },
  });
  /** By hand: PostgreSQL refuses FULL JOIN on IS NOT DISTINCT FROM, so the NULL-keyed rows are added as one row of their own. */
  const handFull = () =>
    server.sql.query(`
      with s as (select region, sum(amount) revenue from ${S}.sales group by 1), r as (select region, sum(amount) refunded from ${S}.returns group by 1)
      select coalesce(s.region, r.region) region, s.revenue::text revenue, r.refunded::text refunded from s full join r on s.region = r.region
      where coalesce(s.region, r.region) is not null
      union all
      select null, (select revenue::text from s where region is null), (select refunded::text from r where region is null)
      order by 1 nulls last`);
  const asRows = (truth: Record<string, unknown>[]) => truth.map((t) => Object.values(t));

  it('makes one row of the keys NULL on both sides, in a left, an inner and a full merge', async () => {
    const full = asRows(await handFull());
    expect(full.at(-1)).toEqual([null, '7.00', '1.25']);
    expect((await semantic(byRegion({ joinType: 'full' }))).body.data.preview.rows).toEqual(full);
    expect((await semantic(byRegion())).body.data.preview.rows).toEqual(full.filter((r) => r[1] !== null));
    expect((await semantic(byRegion({ joinType: 'inner' }))).body.data.preview.rows).toEqual(full.filter((r) => r[1] !== null && r[2] !== null));
  });

  it('gives the same rows on PostgreSQL through the FULL JOIN emulation of engines without it', async () => {
    const catalog = new SemanticCatalog(loadModels(modelsDir));
    const compiled = compileIntent(catalog, () => ({ ...pgDialect, fullJoin: false }), { id: 'analyst', role: 'analyst', roles: ['analyst'], datasources: ['*'], auth: 'token' }, SemanticIntent.parse(byRegion({ joinType: 'full' })));
    expect(compiled.sql).not.toMatch(/FULL JOIN/);
    const got = await server.sql.query(compiled.sql, compiled.params as string[]);
    const want = await handFull();
    // numeric arrives as text from the driver, as the hand-written ::text columns do.
    expect(asRows(got)).toEqual(asRows(want));
  });

  it('joins a date key to a timestamp key at a shared grain, as dates', async () => {
    const r = await semantic({
      type: 'merge',
      query: {
        sources: [
          { explore: 'sales', dimensions: ['sales.sold_on_month'], metrics: ['sales.revenue'] },
          { explore: 'returns', dimensions: ['returns.returned_at_month'], metrics: ['returns.refunded'] },
        ],
        joinOn: [{ left: 'sales.sold_on_month', right: 'returns.returned_at_month' }],
        joinType: 'full',
      },
    });
    expect(r.status).toBe(200);
    const truth = await server.sql.query(`
      with s as (select date_trunc('month', sold_at::date)::date m, sum(amount) revenue from ${S}.sales group by 1),
           r as (select date_trunc('month', returned_at)::date m, sum(amount) refunded from ${S}.returns group by 1)
      select to_char(coalesce(s.m, r.m), 'YYYY-MM-DD') m, s.revenue::text revenue, r.refunded::text refunded from s full join r on s.m = r.m order by 1`);
    expect(truth.length).toBeGreaterThan(11);
    expect(r.body.data.preview.rows).toEqual(asRows(truth));
  });

  it('computes table calculations, sorts on them, and gives NULL for a division by zero', async () => {
    const r = await semantic(
      byRegion({
        joinType: 'full',
        tableCalculations: [
          { name: 'net', expression: 'coalesce(sales.revenue, 0) - coalesce(returns.refunded, 0)' },
          { name: 'share', expression: 'returns.refunded / (sales.revenue - sales.revenue)' },
        ],
        sorts: [{ field: 'net', direction: 'desc' }],
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.data.fields.slice(-2)).toEqual([
      { id: 'net', kind: 'calculation' },
      { id: 'share', kind: 'calculation' },
    ]);
    const truth = await server.sql.query(`
      with m as (
        with s as (select region, sum(amount) revenue from ${S}.sales group by 1), r as (select region, sum(amount) refunded from ${S}.returns group by 1)
        select coalesce(s.region, r.region) region, s.revenue, r.refunded from s full join r on s.region = r.region where coalesce(s.region, r.region) is not null
        union all select null, (select revenue from s where region is null), (select refunded from r where region is null))
      select region, (coalesce(revenue, 0) - coalesce(refunded, 0))::float8 net from m order by 2 desc`);
    expect(r.body.data.preview.rows.map((row: unknown[]) => [row[0], Number(row[3]), row[4]])).toEqual(truth.map((t) => [t.region, t.net, null]));
  });

  it('refuses hostile calculations with every error at once, runs nothing and changes nothing', async () => {
    const before = server.sluice.queriesSubmitted();
    const r = await semantic(
      byRegion({
        tableCalculations: [
          { name: 'a', expression: `1); DROP TABLE ${S}.sales; --` },
          { name: 'b', expression: "sales.revenue || 'x'" },
          { name: 'c', expression: 'pg_sleep(5)' },
          { name: 'd', expression: '1'.repeat(10_000) },
        ],
        sorts: [{ field: 'sales.nope' }],
      }),
    );
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('SEMANTIC_VALIDATION_ERROR');
    expect(r.body.error.details.field).toBe('a');
    expect(r.body.error.details.errors.map((e: { kind: string; field: string }) => `${e.kind}:${e.field}`)).toEqual(['bad_calculation:a', 'bad_calculation:b', 'bad_calculation:c', 'bad_calculation:d', 'bad_sort:sales.nope']);
    expect(server.sluice.queriesSubmitted()).toBe(before);
    const [{ n }] = (await server.sql.query(`select count(*)::int n from ${S}.sales`)) as unknown as [{ n: number }];
    expect(n).toBe(3002);
  });

  it('fails a merge whose source is over SLUICE_MERGE_SOURCE_ROWS, naming it; a source at the cap runs', async () => {
    const capped = await startTestServer({ SLUICE_MODELS_DIR: modelsDir, SLUICE_MERGE_SOURCE_ROWS: '4' });
    try {
      // sales has 4 regions (north, south, east, NULL): at the cap. returns has 5 (with west): over it.
      const before = capped.sluice.queriesSubmitted();
      const over = await capped.request('/api/semantic/query', { token: TOKENS.analyst, body: { intent: byRegion() } });
      // The merge executed once: the cap is part of its one statement, not a count run before it.
      expect(capped.sluice.queriesSubmitted()).toBe(before + 1);
      expect(over.status).toBe(400);
      expect(over.body.errorCode).toBe('SEMANTIC_VALIDATION_ERROR');
      expect(over.body.error.details).toMatchObject({ source: 1, field: null, explore: 'returns' });
      expect(over.body.error.details.errors).toEqual([{ kind: 'source_row_cap', source: 1, message: expect.stringMatching(/^Source 1: explore "returns" returns more than 4 rows/) }]);
      // Still running when the answer goes (waitMs 0), it ends as the same validation error when polled.
      const later = await capped.request('/api/semantic/query', { token: TOKENS.analyst, body: { intent: byRegion(), waitMs: 0 } });
      expect(later.status).toBe(202);
      let polled = await capped.request(`/api/queries/${later.body.data.queryId}?waitMs=5000`, { token: TOKENS.analyst });
      for (let i = 0; i < 20 && polled.status === 200; i++) polled = await capped.request(`/api/queries/${later.body.data.queryId}?waitMs=5000`, { token: TOKENS.analyst });
      expect(polled.status).toBe(400);
      expect(polled.body.errorCode).toBe('SEMANTIC_VALIDATION_ERROR');
      expect(polled.body.error.details).toMatchObject({ queryId: later.body.data.queryId, state: 'FAILED', source: 1, explore: 'returns' });
      expect(polled.body.error.details.errors).toEqual(over.body.error.details.errors);
      const withoutWest = byRegion();
      (withoutWest.query.sources[1] as Record<string, unknown>).filters = [{ field: 'returns.region', op: 'not_in', value: ['west'] }];
      const atCap = await capped.request('/api/semantic/query', { token: TOKENS.analyst, body: { intent: withoutWest } });
      expect(capped.sluice.queriesSubmitted()).toBe(before + 3);
      expect(atCap.status).toBe(200);
      expect(atCap.body.data.preview.rows.map((row: unknown[]) => row[0])).toEqual(['east', 'north', 'south', null]);
    } finally {
      await capped.stop();
    }
  });
});

describe('visualizations', () => {
  it('stores a table and a bar chart of the same merge intent and renders them as SVG', async () => {
    const intent = mergeIntent();
    for (const chart of [{ type: 'table' }, { type: 'bar', x: 'sales.region', y: ['sales.revenue', 'returns.refunded'] }]) {
      const r = await server.request('/api/semantic/visualizations', { token: TOKENS.analyst, body: { intent, chart, title: 'Sales vs returns' } });
      expect(r.status).toBe(200);
      expect(r.body.data.spec.$schema).toContain('vega-lite');
      expect(r.body.data.artifactId).toBeNull();
      // Every row of the result is drawn, and the answer says so.
      expect(r.body.data.drawnRows).toBe(r.body.data.spec.data.values.length);
      expect(r.body.data.totalRows).toBe(r.body.data.drawnRows);
      expect(r.body.summary).not.toContain('The chart draws');
      const saved = await server.request(`/api/semantic/visualizations/${r.body.data.id}`, { token: TOKENS.analyst });
      // Stored as the intent (with defaults filled in), never as SQL.
      expect(saved.body.data.intent).toMatchObject(intent);
      expect(JSON.stringify(saved.body.data)).not.toMatch(/select|SELECT/);
      const svg = await server.request(`/api/semantic/visualizations/${r.body.data.id}/render.svg`, { token: TOKENS.analyst });
      expect(svg.headers.get('content-type')).toContain('image/svg+xml');
      expect(svg.body).toMatch(/^<svg/);
      expect(svg.body).toContain('Sales vs returns');
      const other = await server.request(`/api/semantic/visualizations/${r.body.data.id}/render.svg`, { token: TOKENS.other });
      expect(other.body.errorCode).toBe('NOT_FOUND');
    }
  });

  it('says drawnRows and totalRows when the chart draws only the first 500 rows of the result', async () => {
    const intent = { type: 'metric', query: { explore: 'sales', dimensions: ['sales.region', 'sales.sold_at'], metrics: ['sales.sale_count'], sorts: [{ field: 'sales.sold_at', direction: 'asc' }] } };
    const [truth] = await server.sql.query(`select count(*)::int n from (select distinct region, sold_at from ${S}.sales) d`);
    expect(truth!.n).toBeGreaterThan(500);
    const r = await server.request('/api/semantic/visualizations', { token: TOKENS.analyst, body: { intent, chart: { type: 'line', x: 'sales.sold_at', y: ['sales.sale_count'], series: 'sales.region' } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ drawnRows: 500, totalRows: truth!.n });
    expect(r.body.data.spec.data.values).toHaveLength(500);
    expect(r.body.data.artifactId).toEqual(expect.any(String));
    expect(r.body.summary).toContain(`The chart draws the first 500 of ${truth!.n} rows.`);
  });

  it('refuses a chart field that is not in the result', async () => {
    const r = await server.request('/api/semantic/visualizations', { token: TOKENS.analyst, body: { intent: mergeIntent(), chart: { type: 'line', x: 'sales.nope', y: ['sales.revenue'] } } });
    expect(r.body.errorCode).toBe('SEMANTIC_VALIDATION_ERROR');
  });

  it('re-renders saved visualizations after a restart, reading an intent without type as a metric intent', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-viz-'));
    const env = { SLUICE_DATA_DIR: dataDir, SLUICE_MODELS_DIR: modelsDir };
    const first = await startTestServer(env);
    const created = await first.request('/api/semantic/visualizations', {
      token: TOKENS.analyst,
      body: { intent: { explore: 'sales', dimensions: ['sales.sold_at_year'], metrics: ['sales.sale_count'] }, chart: { type: 'line', x: 'sales.sold_at_year', y: ['sales.sale_count'] } },
    });
    expect(created.status).toBe(200);
    await first.stop();
    const second = await startTestServer(env);
    try {
      const svg = await second.request(`/api/semantic/visualizations/${created.body.data.id}/render.svg`, { token: TOKENS.analyst });
      expect(svg.status).toBe(200);
      expect(svg.body).toMatch(/^<svg/);
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('SLUICE_MERGE_SOURCE_ROWS', () => {
  it('defaults to 100000 and refuses what is not a positive integer, naming the variable', () => {
    expect(loadConfig({}).mergeSourceRows).toBe(100_000);
    expect(loadConfig({ SLUICE_MERGE_SOURCE_ROWS: '25' }).mergeSourceRows).toBe(25);
    for (const bad of ['0', '-3', '1.5', 'lots']) expect(() => loadConfig({ SLUICE_MERGE_SOURCE_ROWS: bad })).toThrow(/SLUICE_MERGE_SOURCE_ROWS must be an integer between 1 and/);
  });
});

describe('model files', () => {
  it('refuses to start on an invalid file, naming file, explore and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-badmodel-'));
    writeFileSync(join(dir, 'broken.yml'), 'explores:\n  - name: orders\n    table: public.orders\n    dimensions:\n      - { name: region, type: text }\n');
    try {
      await expect(startSluice(loadConfig({ SLUICE_MODELS_DIR: dir, SLUICE_DATA_DIR: dir, PORT: '0', DATABASE_URL: 'postgres://127.0.0.1:1/none' }), quietLogger)).rejects.toThrow(/broken\.yml, explore "orders", dimension "region", field "type"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
