/**
 * The semantic compiler on its own, with no server and no database: a
 * catalog loaded from a model file written here, intents parsed by the
 * request schema, and the compiled statements run in an in-memory DuckDB
 * over a few hand-written rows. DuckDB speaks the part of PostgreSQL's
 * dialect the compiler emits ($n parameters, ::casts, date_trunc, quoted
 * identifiers, CTEs), so rows can be checked without PostgreSQL; the HTTP
 * suite (semantic.test.ts) checks the same layer against PostgreSQL itself.
 * Every refusal must come before any SQL exists, as
 * SEMANTIC_VALIDATION_ERROR naming the source and the field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBValue } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principals.ts';
import { SemanticCatalog } from '../../src/semantic/catalog.ts';
import { compileIntent } from '../../src/semantic/compile.ts';
import { sourceRowCapError } from '../../src/semantic/source-row-cap.ts';
import { pgDialect } from '../../src/datasources/postgres/pg-dialect.ts';
import { SemanticIntent } from '../../src/semantic/intent.ts';
import { loadModels } from '../../src/semantic/load-models.ts';
import { openDuck } from '../artifacts/artifact-fixture.ts';

const MODEL = `
explores:
  - name: sales
    table: shop.sales
    dimensions:
      - { name: region, type: string }
      - { name: channel, type: string }
      - { name: sold_at, type: timestamp, timeGrains: [day, week, month, quarter, year] }
      - { name: sold_on, type: date, sql: "cast(sold_at as date)", timeGrains: [month] }
      - { name: quantity, type: number }
      - { name: paid, type: boolean }
    metrics:
      - { name: revenue, type: sum, sql: amount }
      - { name: sale_count, type: count }
      - { name: paid_count, type: count, sql: "case when paid then 1 end" }
      - { name: buyers, type: count_distinct, sql: buyer }
      - { name: average, type: avg, sql: amount }
      - { name: smallest, type: min, sql: amount }
      - { name: largest, type: max, sql: amount }
  - name: returns
    table: shop.returns
    dimensions:
      - { name: region, type: string }
      - { name: returned_at, type: timestamp, timeGrains: [day, month] }
      - { name: quantity, type: number }
    metrics:
      - { name: refunded, type: sum, sql: amount }
  - name: remote
    datasource: warehouse
    table: shop.sales
    dimensions: [{ name: region, type: string }]
    metrics: [{ name: revenue, type: sum, sql: amount }]
  - name: secret
    table: shop.sales
    access: { roles: [admin] }
    dimensions: [{ name: region, type: string }]
    metrics: [{ name: revenue, type: sum, sql: amount }]
  - name: guarded
    table: shop.sales
    requiredFilters: [{ field: guarded.sold_at, op: gte }]
    dimensions: [{ name: sold_at, type: timestamp }, { name: region, type: string }]
    metrics: [{ name: revenue, type: sum, sql: amount }]
  - name: big_sales
    sql: "select * from shop.sales where amount >= {{min_amount}} and ({{channel}} is null or channel = {{channel}})"
    parameters:
      - { name: min_amount, type: number }
      - { name: channel, type: string, required: false }
    dimensions: [{ name: region, type: string }]
    metrics: [{ name: revenue, type: sum, sql: amount }]
`;

// id, region, channel, sold_at, amount, buyer, quantity, paid
const SALES = [
  [1, 'north', 'web', '2023-12-31 10:00:00+00', '10.00', 1, 1, true],
  [2, 'north', 'shop', '2024-01-03 09:00:00+00', '20.50', 2, 2, true],
  [3, 'south', 'web', '2024-01-08 00:00:00+00', '5.25', 1, 3, false],
  [4, 'south', 'web', '2024-02-29 23:00:00+00', '7.75', 3, 1, true],
  [5, 'east', 'shop', '2024-04-01 12:00:00+00', '100.00', 4, 5, null],
  [6, null, 'web', '2024-01-03 11:00:00+00', '1.00', 2, null, false],
];
// id, region, returned_at, amount, quantity
const RETURNS = [
  [1, 'north', '2024-01-10 00:00:00+00', '2.00', 1],
  [2, 'north', '2024-01-20 00:00:00+00', '3.00', 1],
  [3, 'west', '2024-01-05 00:00:00+00', '4.00', 2],
  [4, 'south', '2024-02-01 00:00:00+00', '1.50', 1],
  [5, null, '2024-01-15 00:00:00+00', '0.50', 1],
];

const ANALYST: Principal = { id: 'analyst', role: 'analyst', roles: ['analyst'], datasources: ['*'], auth: 'token' };
const ADMIN: Principal = { id: 'admin', role: 'admin', roles: ['admin'], datasources: ['*'], auth: 'token' };
const DEFAULT_ONLY: Principal = { id: 'limited', role: 'admin', roles: ['admin'], datasources: ['default'], auth: 'token' };

let catalog: SemanticCatalog;
let modelsDir: string;
let duck: Awaited<ReturnType<typeof openDuck>>;

beforeAll(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'sluice-compile-'));
  writeFileSync(join(modelsDir, 'test.yml'), MODEL);
  catalog = new SemanticCatalog(loadModels(modelsDir));
  duck = await openDuck();
  const c = duck.connection;
  await c.run('CREATE SCHEMA shop');
  await c.run('CREATE TABLE shop.sales (id INTEGER, region VARCHAR, channel VARCHAR, sold_at TIMESTAMPTZ, amount DECIMAL(12,2), buyer INTEGER, quantity INTEGER, paid BOOLEAN)');
  await c.run('CREATE TABLE shop.returns (id INTEGER, region VARCHAR, returned_at TIMESTAMPTZ, amount DECIMAL(12,2), quantity INTEGER)');
  for (const r of SALES) await c.run('INSERT INTO shop.sales VALUES (?, ?, ?, CAST(? AS TIMESTAMPTZ), CAST(? AS DECIMAL(12,2)), ?, ?, ?)', r);
  for (const r of RETURNS) await c.run('INSERT INTO shop.returns VALUES (?, ?, CAST(? AS TIMESTAMPTZ), CAST(? AS DECIMAL(12,2)), ?)', r);
});
afterAll(() => {
  duck?.close();
  if (modelsDir) rmSync(modelsDir, { recursive: true, force: true });
});

function compile(intent: unknown, principal: Principal = ANALYST) {
  return compileIntent(catalog, () => pgDialect, principal, SemanticIntent.parse(intent));
}

/** The compiled statement's rows, as DuckDB's JSON-safe values (decimals and counts as text). */
async function rows(intent: unknown, principal: Principal = ANALYST): Promise<unknown[][]> {
  const compiled = compile(intent, principal);
  return (await duck.connection.runAndReadAll(compiled.sql, compiled.params as DuckDBValue[])).getRowsJson() as unknown[][];
}

function refusal(intent: unknown, principal: Principal = ANALYST): { code: string; message: string; details: Record<string, unknown> } {
  try {
    compile(intent, principal);
  } catch (error) {
    return error as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error(`compiled, but should have been refused: ${JSON.stringify(intent)}`);
}

const metric = (query: Record<string, unknown>, parameters?: Record<string, unknown>) => ({ type: 'metric', query, ...(parameters ? { parameters } : {}) });

describe('metric intents', () => {
  it('computes every metric type per dimension value, in dimension order with NULL last', async () => {
    const intent = metric({
      explore: 'sales',
      dimensions: ['sales.region'],
      metrics: ['sales.sale_count', 'sales.paid_count', 'sales.revenue', 'sales.buyers', 'sales.average', 'sales.smallest', 'sales.largest'],
    });
    expect(compile(intent).fields).toEqual([
      { id: 'sales.region', source: 0, kind: 'dimension' },
      ...['sale_count', 'paid_count', 'revenue', 'buyers', 'average', 'smallest', 'largest'].map((m) => ({ id: `sales.${m}`, source: 0, kind: 'metric' })),
    ]);
    expect(compile(intent).datasource).toBe('default');
    expect(await rows(intent)).toEqual([
      ['east', '1', '0', '100.00', '1', 100, '100.00', '100.00'],
      ['north', '2', '2', '30.50', '2', 15.25, '10.00', '20.50'],
      ['south', '2', '1', '13.00', '2', 6.5, '5.25', '7.75'],
      [null, '1', '0', '1.00', '1', 1, '1.00', '1.00'],
    ]);
  });

  it('without dimensions answers one row; without metrics, the distinct dimension values', async () => {
    expect(await rows(metric({ explore: 'sales', metrics: ['sales.revenue', 'sales.sale_count'] }))).toEqual([['144.50', '6']]);
    expect(await rows(metric({ explore: 'sales', dimensions: ['sales.channel'] }))).toEqual([['shop'], ['web']]);
  });

  const grains: [string, [string, string][]][] = [
    ['day', [['2023-12-31 00:00:00+00', '1'], ['2024-01-03 00:00:00+00', '2'], ['2024-01-08 00:00:00+00', '1'], ['2024-02-29 00:00:00+00', '1'], ['2024-04-01 00:00:00+00', '1']]],
    // Weeks start on Monday: Sunday 2023-12-31 belongs to the week of Christmas.
    ['week', [['2023-12-25 00:00:00+00', '1'], ['2024-01-01 00:00:00+00', '2'], ['2024-01-08 00:00:00+00', '1'], ['2024-02-26 00:00:00+00', '1'], ['2024-04-01 00:00:00+00', '1']]],
    ['month', [['2023-12-01 00:00:00+00', '1'], ['2024-01-01 00:00:00+00', '3'], ['2024-02-01 00:00:00+00', '1'], ['2024-04-01 00:00:00+00', '1']]],
    ['quarter', [['2023-10-01 00:00:00+00', '1'], ['2024-01-01 00:00:00+00', '4'], ['2024-04-01 00:00:00+00', '1']]],
    ['year', [['2023-01-01 00:00:00+00', '1'], ['2024-01-01 00:00:00+00', '5']]],
  ];
  for (const [grain, expected] of grains) {
    it(`groups a timestamp by ${grain}`, async () => {
      expect(await rows(metric({ explore: 'sales', dimensions: [`sales.sold_at_${grain}`], metrics: ['sales.sale_count'] }))).toEqual(expected);
    });
  }

  it('keeps a date dimension a date at a grain, and a dimension with its own SQL', async () => {
    expect(await rows(metric({ explore: 'sales', dimensions: ['sales.sold_on_month'], metrics: ['sales.sale_count'] }))).toEqual([
      ['2023-12-01', '1'],
      ['2024-01-01', '3'],
      ['2024-02-01', '1'],
      ['2024-04-01', '1'],
    ]);
  });

  it('sorts by a metric and limits the rows', async () => {
    const intent = metric({ explore: 'sales', dimensions: ['sales.region'], metrics: ['sales.revenue'], sorts: [{ field: 'sales.revenue', direction: 'desc' }], limit: 2 });
    expect(await rows(intent)).toEqual([
      ['east', '100.00'],
      ['north', '30.50'],
    ]);
  });
});

describe('filters', () => {
  const ids = async (filters: unknown[]) =>
    (await rows(metric({ explore: 'sales', dimensions: ['sales.sold_at'], metrics: ['sales.sale_count'], filters })))
      .map((r) => SALES.find((s) => String(s[3]) === r[0])![0]);

  const cases: [string, unknown, number[]][] = [
    ['eq', { field: 'sales.region', op: 'eq', value: 'north' }, [1, 2]],
    ['ne leaves NULL out', { field: 'sales.region', op: 'ne', value: 'north' }, [3, 4, 5]],
    ['lt on a number given as text', { field: 'sales.quantity', op: 'lt', value: '2' }, [1, 4]],
    ['lte', { field: 'sales.quantity', op: 'lte', value: 2 }, [1, 2, 4]],
    ['gt on a timestamp', { field: 'sales.sold_at', op: 'gt', value: '2024-01-08T00:00:00Z' }, [4, 5]],
    ['gte on a timestamp', { field: 'sales.sold_at', op: 'gte', value: '2024-01-08T00:00:00Z' }, [3, 4, 5]],
    ['in', { field: 'sales.region', op: 'in', value: ['east', 'south'] }, [3, 4, 5]],
    ['not_in', { field: 'sales.channel', op: 'not_in', value: ['web'] }, [2, 5]],
    ['between on a grain', { field: 'sales.sold_at_month', op: 'between', value: ['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'] }, [2, 3, 4, 6]],
    ['is_null', { field: 'sales.region', op: 'is_null' }, [6]],
    ['is_not_null on a boolean', { field: 'sales.paid', op: 'is_not_null' }, [1, 2, 3, 4, 6]],
    ['eq on a boolean', { field: 'sales.paid', op: 'eq', value: false }, [3, 6]],
    ['contains', { field: 'sales.region', op: 'contains', value: 'out' }, [3, 4]],
    ['starts_with', { field: 'sales.channel', op: 'starts_with', value: 'sh' }, [2, 5]],
  ];
  for (const [label, filter, expected] of cases) {
    it(`${label}`, async () => {
      expect((await ids([filter])).sort()).toEqual(expected);
    });
  }

  it('a filter on a metric applies to the groups (HAVING), on a dimension to the rows (WHERE)', async () => {
    const intent = metric({
      explore: 'sales',
      dimensions: ['sales.region'],
      metrics: ['sales.revenue'],
      filters: [
        { field: 'sales.revenue', op: 'gt', value: 12 },
        { field: 'sales.channel', op: 'eq', value: 'web' },
      ],
    });
    expect(await rows(intent)).toEqual([['south', '13.00']]);
  });

  it('binds every value as a $n parameter, never in the SQL text', () => {
    const hostile = "x' or '1'='1";
    const compiled = compile(
      metric({
        explore: 'sales',
        dimensions: ['sales.region'],
        metrics: ['sales.revenue'],
        filters: [
          { field: 'sales.region', op: 'in', value: [hostile, 'east'] },
          { field: 'sales.channel', op: 'contains', value: hostile },
          { field: 'sales.quantity', op: 'between', value: [1, 9] },
        ],
      }),
    );
    expect(compiled.sql).not.toContain("or '1'='1'");
    expect(compiled.params).toEqual([hostile, 'east', hostile, 1, 9]);
    for (let n = 1; n <= 5; n++) expect(compiled.sql).toContain(`$${n}::`);
  });

  it('a quoted value matches only itself', async () => {
    const intent = metric({ explore: 'sales', metrics: ['sales.sale_count'], filters: [{ field: 'sales.region', op: 'eq', value: "north' or '1'='1" }] });
    expect(await rows(intent)).toEqual([['0']]);
  });
});

describe('required filters and parameters', () => {
  it('refuses an explore without its required filter, or with the field under another op', () => {
    for (const filters of [undefined, [{ field: 'guarded.sold_at', op: 'lt', value: '2025-01-01' }]]) {
      const e = refusal(metric({ explore: 'guarded', metrics: ['guarded.revenue'], ...(filters ? { filters } : {}) }));
      expect(e.code).toBe('SEMANTIC_VALIDATION_ERROR');
      expect(e.details).toMatchObject({ source: null, field: 'guarded.sold_at', explore: 'guarded' });
      expect(e.message).toContain('requires a filter on "guarded.sold_at" with op "gte"');
    }
  });

  it('runs an explore with its required filter', async () => {
    const intent = metric({ explore: 'guarded', metrics: ['guarded.revenue'], filters: [{ field: 'guarded.sold_at', op: 'gte', value: '2024-02-01T00:00:00Z' }] });
    expect(await rows(intent)).toEqual([['107.75']]);
  });

  it('binds explore parameters; an optional one left out is NULL', async () => {
    const base = { explore: 'big_sales', dimensions: ['big_sales.region'], metrics: ['big_sales.revenue'] };
    expect(await rows(metric(base, { min_amount: 10 }))).toEqual([
      ['east', '100.00'],
      ['north', '30.50'],
    ]);
    const withChannel = compile(metric(base, { min_amount: 10, channel: "web' or 'a'='a" }));
    expect(withChannel.params).toEqual([10, "web' or 'a'='a", "web' or 'a'='a"]);
    expect(withChannel.sql).not.toContain("'a'='a'");
    expect(await rows(metric(base, { min_amount: 5, channel: 'web' }))).toEqual([
      ['north', '10.00'],
      ['south', '13.00'],
    ]);
  });

  it('refuses a missing required parameter, naming it', () => {
    const e = refusal(metric({ explore: 'big_sales', metrics: ['big_sales.revenue'] }, { channel: 'web' }));
    expect(e).toMatchObject({ code: 'SEMANTIC_VALIDATION_ERROR', details: { source: null, field: 'min_amount', explore: 'big_sales' } });
    expect(e.message).toContain('"min_amount" (number)');
  });
});

describe('refusals of a metric intent', () => {
  const refused: [string, unknown, string | null, RegExp][] = [
    ['an unknown field, never guessed', metric({ explore: 'sales', dimensions: ['sales.regoin'] }), 'sales.regoin', /"sales.regoin" does not exist in explore "sales"/],
    ['a field of another explore', metric({ explore: 'sales', dimensions: ['returns.region'] }), 'returns.region', /field ids look like sales\.<field>/],
    ['a grain the dimension does not have', metric({ explore: 'returns', dimensions: ['returns.returned_at_year'] }), 'returns.returned_at_year', /does not exist/],
    ['a metric listed as a dimension', metric({ explore: 'sales', dimensions: ['sales.revenue'] }), 'sales.revenue', /is a metric; list it under metrics/],
    ['a dimension listed as a metric', metric({ explore: 'sales', metrics: ['sales.region'] }), 'sales.region', /is a dimension; list it under dimensions/],
    ['nothing selected', metric({ explore: 'sales' }), null, /at least one dimension or metric/],
    ['a sort on a field not selected', metric({ explore: 'sales', dimensions: ['sales.region'], sorts: [{ field: 'sales.channel' }] }), 'sales.channel', /sort field "sales.channel" is not among/],
    ['text for a number', metric({ explore: 'sales', metrics: ['sales.revenue'], filters: [{ field: 'sales.quantity', op: 'eq', value: 'abc' }] }), 'sales.quantity', /must be a number/],
    ['a number for a boolean', metric({ explore: 'sales', metrics: ['sales.revenue'], filters: [{ field: 'sales.paid', op: 'eq', value: 1 }] }), 'sales.paid', /must be a boolean/],
    ['a bad element of a list', metric({ explore: 'sales', metrics: ['sales.revenue'], filters: [{ field: 'sales.quantity', op: 'in', value: [1, 'x'] }] }), 'sales.quantity', /must be a number/],
    ['an empty in', metric({ explore: 'sales', metrics: ['sales.revenue'], filters: [{ field: 'sales.region', op: 'in', value: [] }] }), 'sales.region', /needs a non-empty array/],
    ['between of one value', metric({ explore: 'sales', metrics: ['sales.revenue'], filters: [{ field: 'sales.quantity', op: 'between', value: [1] }] }), 'sales.quantity', /needs \[low, high\]/],
    ['contains of a number', metric({ explore: 'sales', metrics: ['sales.revenue'], filters: [{ field: 'sales.region', op: 'contains', value: 5 }] }), 'sales.region', /needs a string/],
    ['eq of a list', metric({ explore: 'sales', metrics: ['sales.revenue'], filters: [{ field: 'sales.region', op: 'eq', value: ['a'] }] }), 'sales.region', /needs one value/],
    ['eq without a value', metric({ explore: 'sales', metrics: ['sales.revenue'], filters: [{ field: 'sales.region', op: 'eq' }] }), 'sales.region', /needs one value/],
  ];
  for (const [label, intent, field, message] of refused) {
    it(`refuses ${label}, naming the field`, () => {
      const e = refusal(intent);
      expect(e.code).toBe('SEMANTIC_VALIDATION_ERROR');
      expect(e.details).toMatchObject({ source: null, field });
      expect(e.message).toMatch(message);
    });
  }

  it('treats an explore the caller may not use as absent (NOT_FOUND), by role and by datasource', () => {
    expect(refusal(metric({ explore: 'secret', metrics: ['secret.revenue'] }))).toMatchObject({ code: 'NOT_FOUND', details: { explore: 'secret' } });
    expect(compile(metric({ explore: 'secret', metrics: ['secret.revenue'] }), ADMIN).sql).toContain('"shop"."sales"');
    expect(refusal(metric({ explore: 'remote', metrics: ['remote.revenue'] }), DEFAULT_ONLY)).toMatchObject({ code: 'NOT_FOUND' });
    expect(compile(metric({ explore: 'remote', metrics: ['remote.revenue'] })).datasource).toBe('warehouse');
  });
});

describe('merge intents', () => {
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

  /** The same merge written by hand: NULL keys match (IS NOT DISTINCT FROM), keys ordered NULL last. */
  const byHand = (join: 'LEFT' | 'INNER' | 'FULL') => `
    WITH s AS (SELECT region, sum(amount) AS revenue FROM shop.sales GROUP BY 1),
         r AS (SELECT region, sum(amount) AS refunded FROM shop.returns GROUP BY 1)
    SELECT ${join === 'FULL' ? 'COALESCE(s.region, r.region)' : 's.region'} AS region, s.revenue, r.refunded
    FROM s ${join} JOIN r ON s.region IS NOT DISTINCT FROM r.region ORDER BY 1 ASC NULLS LAST`;
  const handRows = async (sql: string) => (await duck.connection.runAndReadAll(sql)).getRowsJson();

  it('left-joins the two sources on their keys, ordered by the keys; keys NULL on both sides match', async () => {
    const intent = byRegion();
    expect(compile(intent).fields).toEqual([
      { id: 'sales.region', source: 0, kind: 'dimension' },
      { id: 'sales.revenue', source: 0, kind: 'metric' },
      { id: 'returns.refunded', source: 1, kind: 'metric' },
    ]);
    expect(await rows(intent)).toEqual([
      ['east', '100.00', null],
      ['north', '30.50', '5.00'],
      ['south', '13.00', '1.50'],
      [null, '1.00', '0.50'],
    ]);
    expect(await rows(intent)).toEqual(await handRows(byHand('LEFT')));
  });

  it('an inner join keeps matching keys only (NULL with NULL too); a full join keeps both sides with the key of either, NULL keys in one row', async () => {
    expect(await rows(byRegion({ joinType: 'inner' }))).toEqual([
      ['north', '30.50', '5.00'],
      ['south', '13.00', '1.50'],
      [null, '1.00', '0.50'],
    ]);
    expect(await rows(byRegion({ joinType: 'inner' }))).toEqual(await handRows(byHand('INNER')));
    expect(await rows(byRegion({ joinType: 'full' }))).toEqual([
      ['east', '100.00', null],
      ['north', '30.50', '5.00'],
      ['south', '13.00', '1.50'],
      ['west', null, '4.00'],
      [null, '1.00', '0.50'],
    ]);
    expect(await rows(byRegion({ joinType: 'full' }))).toEqual(await handRows(byHand('FULL')));
  });

  it('a NULL key never matches a real value equal to the placeholder', async () => {
    // '' is the text placeholder: a region '' on one side must not pair with a NULL region on the other.
    await duck.connection.run("INSERT INTO shop.returns VALUES (99, '', CAST('2024-01-01 00:00:00+00' AS TIMESTAMPTZ), 9.00, 1)");
    try {
      expect(await rows(byRegion({ joinType: 'full' }))).toEqual([
        ['', null, '9.00'],
        ['east', '100.00', null],
        ['north', '30.50', '5.00'],
        ['south', '13.00', '1.50'],
        ['west', null, '4.00'],
        [null, '1.00', '0.50'],
      ]);
    } finally {
      await duck.connection.run('DELETE FROM shop.returns WHERE id = 99');
    }
  });

  it('compiles a full join for an engine without FULL JOIN as LEFT JOIN plus the unmatched right rows, with the same rows, NULL keys included', async () => {
    const withoutFullJoin = { ...pgDialect, fullJoin: false };
    for (const extra of [{ joinType: 'full' }, { joinType: 'full', sorts: [{ field: 'returns.refunded', direction: 'desc' }], limit: 3 }]) {
      const intent = SemanticIntent.parse(byRegion(extra));
      const native = compileIntent(catalog, () => pgDialect, ANALYST, intent);
      const emulated = compileIntent(catalog, () => withoutFullJoin, ANALYST, intent);
      expect(emulated.sql).not.toMatch(/FULL JOIN/);
      expect(emulated.sql).toMatch(/UNION ALL/);
      const run = async (c: typeof native) => (await duck.connection.runAndReadAll(c.sql, c.params as DuckDBValue[])).getRowsJson();
      expect(await run(emulated)).toEqual(await run(native));
    }
    // The NULL-keyed rows of both sides are one row, not a matched row plus an "unmatched" right row.
    const emulated = compileIntent(catalog, () => withoutFullJoin, ANALYST, SemanticIntent.parse(byRegion({ joinType: 'full' })));
    expect((await duck.connection.runAndReadAll(emulated.sql, emulated.params as DuckDBValue[])).getRowsJson()).toEqual(await handRows(byHand('FULL')));
  });

  it('joins a date key to a timestamp key at a shared grain, compared as dates', async () => {
    const intent = {
      type: 'merge',
      query: {
        sources: [
          { explore: 'sales', dimensions: ['sales.sold_on_month'], metrics: ['sales.revenue'] },
          { explore: 'returns', dimensions: ['returns.returned_at_month'], metrics: ['returns.refunded'] },
        ],
        joinOn: [{ left: 'sales.sold_on_month', right: 'returns.returned_at_month' }],
        joinType: 'full',
      },
    };
    const want = await handRows(`
      WITH s AS (SELECT date_trunc('month', cast(sold_at AS date))::date AS m, sum(amount) AS revenue FROM shop.sales GROUP BY 1),
           r AS (SELECT date_trunc('month', returned_at)::date AS m, sum(amount) AS refunded FROM shop.returns GROUP BY 1)
      SELECT COALESCE(s.m, r.m) AS m, s.revenue, r.refunded FROM s FULL JOIN r ON s.m IS NOT DISTINCT FROM r.m ORDER BY 1 NULLS LAST`);
    expect(await rows(intent)).toEqual(want);
    expect(await rows(intent)).toEqual([
      ['2023-12-01', '10.00', null],
      ['2024-01-01', '26.75', '9.50'],
      ['2024-02-01', '7.75', '1.50'],
      ['2024-04-01', '100.00', null],
    ]);
    // Only at a grain: the raw timestamp does not join a date month.
    const raw = refusal({ ...intent, query: { ...intent.query, sources: [intent.query.sources[0], { explore: 'returns', dimensions: ['returns.returned_at'], metrics: ['returns.refunded'] }], joinOn: [{ left: 'sales.sold_on_month', right: 'returns.returned_at' }] } });
    expect(raw.details.errors).toEqual([expect.objectContaining({ kind: 'join_type_mismatch', source: 1, field: 'returns.returned_at' })]);
  });

  it('joins on two keys of the same grain; sorts and limit apply to the merged rows', async () => {
    const intent = {
      type: 'merge',
      query: {
        sources: [
          { explore: 'sales', dimensions: ['sales.region', 'sales.sold_at_month'], metrics: ['sales.revenue'] },
          { explore: 'returns', dimensions: ['returns.region', 'returns.returned_at_month'], metrics: ['returns.refunded'], filters: [{ field: 'returns.quantity', op: 'eq', value: 1 }] },
        ],
        joinOn: [
          { left: 'sales.region', right: 'returns.region' },
          { left: 'sales.sold_at_month', right: 'returns.returned_at_month' },
        ],
        sorts: [{ field: 'returns.refunded', direction: 'desc' }],
        limit: 2,
      },
    };
    expect(await rows(intent)).toEqual([
      ['north', '2024-01-01 00:00:00+00', '20.50', '5.00'],
      ['south', '2024-02-01 00:00:00+00', '7.75', '1.50'],
    ]);
  });

  it('keeps the metrics of one explore merged with itself apart', async () => {
    const intent = {
      type: 'merge',
      query: {
        sources: [
          { explore: 'sales', dimensions: ['sales.region'], metrics: ['sales.revenue'], filters: [{ field: 'sales.channel', op: 'eq', value: 'web' }] },
          { explore: 'sales', dimensions: ['sales.region'], metrics: ['sales.revenue'], filters: [{ field: 'sales.channel', op: 'eq', value: 'shop' }] },
        ],
        joinOn: [{ left: 'sales.region', right: 'sales.region' }],
      },
    };
    expect(compile(intent).fields.map((f) => `${f.source}:${f.id}`)).toEqual(['0:sales.region', '0:sales.revenue', '1:sales.revenue']);
    // The sources' filter values, then the join's NULL placeholders (one per side of each key).
    expect(compile(intent).params).toEqual(['web', 'shop', '', '']);
    expect(await rows(intent)).toEqual([
      ['north', '10.00', '20.50'],
      ['south', '13.00', null],
      [null, '1.00', null],
    ]);
  });

  const monthly = { explore: 'sales', dimensions: ['sales.region', 'sales.sold_at_month'], metrics: ['sales.revenue'] };
  const refused: [string, Record<string, unknown>, number | null, string | null, RegExp][] = [
    ['three sources', { sources: [byRegion().query.sources[0], byRegion().query.sources[1], byRegion().query.sources[1]] }, null, null, /exactly two sources/],
    ['one source', { sources: [byRegion().query.sources[0]] }, null, null, /exactly two sources/],
    ['a source with a limit', { sources: [byRegion().query.sources[0], { ...byRegion().query.sources[1], limit: 5 }] }, 1, null, /move "limit" to the merge query/],
    ['a source with sorts', { sources: [{ ...byRegion().query.sources[0], sorts: [{ field: 'sales.revenue' }] }, byRegion().query.sources[1]] }, 0, 'sales.revenue', /move "sorts" to the merge query/],
    ['sources on two datasources', { sources: [byRegion().query.sources[0], { explore: 'remote', dimensions: ['remote.region'], metrics: ['remote.revenue'] }], joinOn: [{ left: 'sales.region', right: 'remote.region' }] }, 1, null, /a merge needs one datasource/],
    ['no join key', { joinOn: [] }, null, null, /at least one joinOn pair/],
    ['a left key that is not a dimension of source 0', { joinOn: [{ left: 'sales.channel', right: 'returns.region' }] }, 0, 'sales.channel', /not one of source 0's dimensions/],
    ['a right key that is not a dimension of source 1', { joinOn: [{ left: 'sales.region', right: 'returns.quantity' }] }, 1, 'returns.quantity', /not one of source 1's dimensions/],
    [
      'keys of different types',
      { sources: [{ explore: 'sales', dimensions: ['sales.quantity'], metrics: ['sales.revenue'] }, byRegion().query.sources[1]], joinOn: [{ left: 'sales.quantity', right: 'returns.region' }] },
      1,
      'returns.region',
      /is a string, but "sales.quantity" is a number/,
    ],
    [
      'keys of different grains',
      { sources: [monthly, { explore: 'returns', dimensions: ['returns.region', 'returns.returned_at_day'], metrics: ['returns.refunded'] }], joinOn: [{ left: 'sales.region', right: 'returns.region' }, { left: 'sales.sold_at_month', right: 'returns.returned_at_day' }] },
      1,
      'returns.returned_at_day',
      /grain day, but "sales.sold_at_month" has month/,
    ],
    [
      'a grain joined to the raw timestamp',
      { sources: [monthly, { explore: 'returns', dimensions: ['returns.region', 'returns.returned_at'], metrics: ['returns.refunded'] }], joinOn: [{ left: 'sales.region', right: 'returns.region' }, { left: 'sales.sold_at_month', right: 'returns.returned_at' }] },
      1,
      'returns.returned_at',
      /grain none, but "sales.sold_at_month" has month/,
    ],
    ['a fan-out from source 0', { sources: [monthly, byRegion().query.sources[1]] }, 0, 'sales.sold_at_month', /fan-out/],
    ['a fan-out from source 1', { sources: [byRegion().query.sources[0], { explore: 'returns', dimensions: ['returns.region', 'returns.quantity'], metrics: ['returns.refunded'] }] }, 1, 'returns.quantity', /fan-out/],
    ['a sort on a field that is neither a key nor a metric', { sorts: [{ field: 'sales.channel' }] }, null, 'sales.channel', /is not a column of the merged result/],
    ['an invalid field inside a source', { sources: [byRegion().query.sources[0], { explore: 'returns', dimensions: ['returns.regoin'], metrics: ['returns.refunded'] }] }, 1, 'returns.regoin', /^Source 1: field "returns.regoin" does not exist/],
  ];
  for (const [label, change, source, field, message] of refused) {
    it(`refuses ${label}, naming source ${source} and field ${field}`, () => {
      const intent = byRegion(change);
      const e = refusal(intent);
      expect(e.code).toBe('SEMANTIC_VALIDATION_ERROR');
      expect(e.details).toMatchObject({ source, field });
      expect(e.message).toMatch(message);
      if (source !== null) expect(e.message).toMatch(new RegExp(`^Source ${source}: `));
    });
  }
});

describe('merge table calculations', () => {
  const withCalcs = (tableCalculations: unknown[], extra: Record<string, unknown> = {}) => ({
    type: 'merge',
    query: {
      sources: [
        { explore: 'sales', dimensions: ['sales.region'], metrics: ['sales.revenue', 'sales.sale_count'] },
        { explore: 'returns', dimensions: ['returns.region'], metrics: ['returns.refunded'] },
      ],
      joinOn: [{ left: 'sales.region', right: 'returns.region' }],
      joinType: 'full',
      tableCalculations,
      ...extra,
    },
  });

  it('computes calculations over the merged columns, names them as columns, and sorts on them', async () => {
    const intent = withCalcs(
      [
        { name: 'net', expression: 'coalesce(sales.revenue, 0) - coalesce(returns.refunded, 0)' },
        { name: 'refund_share', expression: 'returns.refunded / sales.revenue' },
        { name: 'per_sale', expression: '-(sales.revenue) / nullif(sales.sale_count, 1) * 2' },
      ],
      { sorts: [{ field: 'net', direction: 'desc' }] },
    );
    const compiled = compile(intent);
    expect(compiled.fields.slice(-3)).toEqual([
      { id: 'net', kind: 'calculation' },
      { id: 'refund_share', kind: 'calculation' },
      { id: 'per_sale', kind: 'calculation' },
    ]);
    const got = (await rows(intent)).map((r) => [r[0], Number(r[4]), r[5] === null ? null : Number(Number(r[5]).toFixed(4)), r[6] === null ? null : Number(r[6])]);
    // By hand: net = revenue - refunded; refund_share = refunded / revenue (NULL without revenue); per_sale = -revenue / nullif(count, 1) * 2.
    expect(got).toEqual([
      ['east', 100, null, null],
      ['north', 25.5, 0.1639, -30.5],
      ['south', 11.5, 0.1154, -13],
      [null, 0.5, 0.5, null],
      ['west', -4, null, null],
    ]);
  });

  it('gives NULL for a division by zero', async () => {
    const intent = withCalcs([{ name: 'zero', expression: 'sales.revenue / (sales.sale_count - sales.sale_count)' }], { joinType: 'left' });
    expect((await rows(intent)).map((r) => r[4])).toEqual([null, null, null, null]);
  });

  const hostile: [string, string, RegExp][] = [
    ['a statement injected after a parenthesis', '1); DROP TABLE x; --', /unexpected character ";"/],
    ['a quoted string', "sales.revenue + 'a'", /unexpected character "'"/],
    ['a double-quoted identifier', '"sales.revenue"', /unexpected character/],
    ['a block comment', 'sales.revenue /* x */', /unexpected "\*"/],
    ['an unknown function', 'pg_sleep(10)', /"pg_sleep" is not a function/],
    ['a subquery', '(select 1)', /"select" is not a column/],
    ['an unknown field id', 'sales.profit * 2', /"sales.profit" is not a column of the merged result/],
    ['a field the merge does not select', 'sales.average', /not a column/],
    ['an empty expression', '  ', /empty/],
    ['a nesting too deep', `${'('.repeat(40)}1${')'.repeat(40)}`, /nests deeper than 20/],
    ['a chain of minus signs too deep', `${'-'.repeat(40)}1`, /nests deeper than 20/],
    ['a 10,000-character expression', `1${' + 1'.repeat(2500)}`, /10001 characters long; the most is 1000/],
    ['nullif with one argument', 'nullif(sales.revenue)', /nullif takes 2 arguments; got 1/],
    ['two values side by side', 'sales.revenue returns.refunded', /unexpected "returns.refunded"/],
  ];
  for (const [label, expression, message] of hostile) {
    it(`refuses ${label}, in details.errors, before any SQL exists`, () => {
      const e = refusal(withCalcs([{ name: 'calc', expression }]));
      expect(e.code).toBe('SEMANTIC_VALIDATION_ERROR');
      expect(e.details.errors).toEqual([{ kind: 'bad_calculation', field: 'calc', message: expect.stringMatching(message) }]);
    });
  }

  it('refuses a bad name, a name already taken and a calculation naming another', () => {
    const e = refusal(
      withCalcs([
        { name: 'Bad-Name', expression: '1' },
        { name: 'a', expression: '1' },
        { name: 'a', expression: '2' },
        { name: 'b', expression: 'a + 1' },
      ]),
    );
    expect((e.details.errors as { field: string; message: string }[]).map((x) => `${x.field}: ${x.message}`)).toEqual([
      expect.stringMatching(/^Bad-Name: .*lowercase letter/),
      expect.stringMatching(/^a: .*already a column/),
      expect.stringMatching(/^b: .*"a" is not a column/),
    ]);
  });

  it('never puts the expression text in the SQL: only numbers, quoted columns and its own operators', () => {
    const sql = compile(withCalcs([{ name: 'calc', expression: 'COALESCE(sales.revenue,0)*1.5' }])).sql;
    expect(sql).toContain('(COALESCE("sales.revenue", 0) * 1.5) AS "calc"');
    // Two minus signs are a double negation in the grammar, never a comment in the SQL.
    const negated = compile(withCalcs([{ name: 'calc', expression: 'sales.revenue -- 1' }])).sql;
    expect(negated).toContain('("sales.revenue" - (-1)) AS "calc"');
    expect(negated).not.toContain('--');
  });
});

describe('every validation error at once', () => {
  it('lists each error with its kind, source and field; the first stays on top for older clients', () => {
    const e = refusal({
      type: 'merge',
      query: {
        sources: [
          { explore: 'sales', dimensions: ['sales.regoin', 'sales.channel'], metrics: ['sales.region'], filters: [{ field: 'sales.quantity', op: 'eq', value: 'x' }] },
          { explore: 'returns', dimensions: ['returns.region'], metrics: ['returns.refunded'], limit: 3 },
        ],
        joinOn: [{ left: 'sales.channel', right: 'returns.returned_at' }],
        sorts: [{ field: 'sales.nope' }],
        tableCalculations: [{ name: 'x', expression: 'sales.revenue +' }],
      },
    });
    expect(e.code).toBe('SEMANTIC_VALIDATION_ERROR');
    expect(e.details).toMatchObject({ source: 1, field: null });
    expect(e.message).toMatch(/^Source 1: a merge source is always complete.*\(and 7 more in details\.errors\)$/);
    expect((e.details.errors as { kind: string; source?: number; field?: string }[]).map((x) => [x.kind, x.source ?? null, x.field ?? null])).toEqual([
      ['merge_shape', 1, null],
      ['unknown_field', 0, 'sales.regoin'],
      ['wrong_kind', 0, 'sales.region'],
      ['bad_filter', 0, 'sales.quantity'],
      ['join_key', 1, 'returns.returned_at'],
      ['fan_out', 1, 'returns.region'],
      ['bad_calculation', null, 'x'],
      ['bad_sort', null, 'sales.nope'],
    ]);
  });
});

describe('the source row cap', () => {
  it('is part of the merge\'s one statement: within the cap the rows come back, over it the statement fails itself, naming each source over', async () => {
    const merge = (joinType: string, returnsFilters: unknown[]) =>
      SemanticIntent.parse({
        type: 'merge',
        query: {
          sources: [
            { explore: 'sales', dimensions: ['sales.region'], metrics: ['sales.revenue'], filters: [{ field: 'sales.channel', op: 'eq', value: 'web' }] },
            { explore: 'returns', dimensions: ['returns.region'], metrics: ['returns.refunded'], filters: returnsFilters },
          ],
          joinOn: [{ left: 'sales.region', right: 'returns.region' }],
          joinType,
        },
      });
    const intent = merge('left', []);
    const run = async (cap: number) => {
      const compiled = compileIntent(catalog, () => pgDialect, ANALYST, intent, cap);
      expect(compiled.sourceRowCap).toEqual({ cap, explores: ['sales', 'returns'] });
      try {
        return (await duck.connection.runAndReadAll(compiled.sql, compiled.params as DuckDBValue[])).getRowsJson().length;
      } catch (error) {
        const refusal = sourceRowCapError(error, compiled.sourceRowCap!);
        if (refusal === null) throw error;
        return refusal.details!.errors;
      }
    };
    // Web sales have 3 regions (north, south, NULL); returns have 4 (north, west, south, NULL).
    expect(await run(100)).toBe(3);
    expect(await run(4)).toBe(3);
    expect(await run(3)).toEqual([{ kind: 'source_row_cap', source: 1, message: expect.stringMatching(/^Source 1: explore "returns" returns more than 3 rows/) }]);
    expect(await run(2)).toEqual([
      { kind: 'source_row_cap', source: 0, message: expect.stringMatching(/^Source 0: explore "sales" returns more than 2 rows/) },
      { kind: 'source_row_cap', source: 1, message: expect.stringMatching(/^Source 1: explore "returns" returns more than 2 rows/) },
    ]);
    // An inner merge with no row at all still fails when a source is over.
    const none = compileIntent(catalog, () => pgDialect, ANALYST, merge('inner', [{ field: 'returns.region', op: 'eq', value: 'nowhere' }]), 2);
    await expect(duck.connection.runAndReadAll(none.sql, none.params as DuckDBValue[])).rejects.toThrow(/sluice_source_row_cap:0,/);
    expect(compile(metric({ explore: 'sales', metrics: ['sales.revenue'] })).sourceRowCap).toBeUndefined();
  });

  it('tells no other failure for a row cap failure', () => {
    expect(sourceRowCapError(new Error('division by zero'), { cap: 3, explores: ['a', 'b'] })).toBeNull();
  });
});

describe('the shipped model (models/shop.yml)', () => {
  it('compiles every explore with all its fields into SQL that runs', async () => {
    const shop = new SemanticCatalog(loadModels(join(import.meta.dirname, '../../models')));
    const visible = shop.visible(ADMIN);
    expect(visible.map((e) => e.name)).toEqual(['orders', 'refunds', 'customers', 'order_items']);
    const c = duck.connection;
    await c.run('CREATE SCHEMA IF NOT EXISTS public');
    await c.run('CREATE TABLE public.orders (id BIGINT, customer_id BIGINT, status VARCHAR, region VARCHAR, created_at TIMESTAMPTZ, total DECIMAL(12,2))');
    await c.run('CREATE TABLE public.refunds (id BIGINT, order_id BIGINT, amount DECIMAL(12,2), reason VARCHAR, created_at TIMESTAMPTZ)');
    await c.run('CREATE TABLE public.customers (id BIGINT, region VARCHAR, created_at TIMESTAMPTZ)');
    await c.run('CREATE TABLE public.order_items (id BIGINT, order_id BIGINT, product_id BIGINT, quantity INTEGER, unit_price DECIMAL(12,2))');
    await c.run('CREATE TABLE public.products (id BIGINT, name VARCHAR, category VARCHAR)');
    await c.run("INSERT INTO public.orders VALUES (1, 7, 'paid', 'north', '2024-03-05 10:00:00+00', 12.50), (2, 7, 'paid', 'north', '2024-03-06 10:00:00+00', 7.50)");
    for (const explore of visible) {
      const fields = shop.fields(explore);
      const intent = SemanticIntent.parse({
        type: 'metric',
        query: { explore: explore.name, dimensions: fields.filter((f) => f.kind === 'dimension').map((f) => f.id), metrics: fields.filter((f) => f.kind === 'metric').map((f) => f.id) },
      });
      const compiled = compileIntent(shop, () => pgDialect, ADMIN, intent);
      const result = await c.runAndReadAll(compiled.sql, compiled.params as DuckDBValue[]);
      expect(result.columnNames(), explore.name).toEqual(fields.map((f) => f.id));
    }
    const orders = compileIntent(shop, () => pgDialect, ADMIN, SemanticIntent.parse({ type: 'metric', query: { explore: 'orders', dimensions: ['orders.created_at_month'], metrics: ['orders.revenue', 'orders.customer_count'] } }));
    expect((await c.runAndReadAll(orders.sql, [])).getRowsJson()).toEqual([['2024-03-01 00:00:00+00', '20.00', '1']]);
  });
});
