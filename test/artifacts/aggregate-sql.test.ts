/**
 * The aggregate statement builder on its own: every function, group-by,
 * aliases, filters, sort and limit, run in DuckDB over a two-part Parquet
 * artifact and compared with sums worked out by hand. Exactness is the
 * point of several cases: integer and decimal sums come back as exact
 * decimal strings, also past 2^53.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAggregateStatement } from '../../src/artifacts/aggregate-sql.ts';
import type { AggregateRequest } from '../../src/artifacts/types.ts';
import { artifactFixture, type ArtifactFixture } from './artifact-fixture.ts';

const SPECS = [
  { name: 'region', type: 'text' },
  { name: 'qty', type: 'int4' },
  { name: 'amount', type: 'numeric(12,2)' },
  { name: 'big', type: 'int8' },
  { name: 'ratio', type: 'float8' },
  { name: 'n', type: 'numeric' },
  { name: 'at', type: 'timestamptz' },
  { name: 'a "quoted" name', type: 'text' },
  { name: 'dup', type: 'int4' },
  { name: 'dup', type: 'int4' },
];

// region, qty, amount, big, ratio, n, at, hostile, dup, dup
const PARTS = [
  [
    ['north', 1, '0.10', '4611686018427387904', 0.5, '0.1', '2024-03-01 10:00:00+00', 'p', 1, 2],
    ['south', 2, '0.20', '1', 1.5, '0.2', '2024-01-15 00:00:00+00', 'q', 1, 2],
    ['north', 3, '0.30', '4611686018427387904', 2.5, '0.3', '2024-02-01 00:00:00+00', 'p', 1, 2],
  ],
  [
    [null, 4, '1.00', '5', null, '10', null, null, 1, 2],
    ['south', null, null, null, 4, null, '2024-05-01 00:00:00+00', 'q', 1, 2],
    ['east', 5, '2.05', '-3', 1, '1.0000000001', '2023-12-31 23:59:59+00', 'r', 1, 2],
  ],
];

let artifact: ArtifactFixture;
beforeAll(async () => {
  artifact = await artifactFixture(SPECS, PARTS);
});
afterAll(() => artifact?.close());

function statement(request: Partial<AggregateRequest>) {
  return buildAggregateStatement(artifact.columns, artifact.parts, { metrics: [], limit: 100, ...request });
}

async function aggregate(request: Partial<AggregateRequest>) {
  const s = statement(request);
  return { columns: s.columns, rows: await artifact.run(s) };
}

describe('metrics over the whole artifact', () => {
  it('computes every function exactly and names outputs fn_column unless given "as"', async () => {
    const r = await aggregate({
      metrics: [
        { fn: 'count' },
        { fn: 'count', column: 'ratio' },
        { fn: 'count_distinct', column: 'region' },
        { fn: 'sum', column: 'qty' },
        { fn: 'sum', column: 'amount', as: 'total' },
        { fn: 'sum', column: 'big' },
        { fn: 'sum', column: 'ratio' },
        { fn: 'sum', column: 'n' },
        { fn: 'avg', column: 'qty' },
        { fn: 'min', column: 'at' },
        { fn: 'max', column: 'region' },
      ],
    });
    expect(r.columns).toEqual([
      { name: 'count', type: 'int8' },
      { name: 'count_ratio', type: 'int8' },
      { name: 'count_distinct_region', type: 'int8' },
      { name: 'sum_qty', type: 'numeric' },
      { name: 'total', type: 'numeric' },
      { name: 'sum_big', type: 'numeric' },
      { name: 'sum_ratio', type: 'float8' },
      { name: 'sum_n', type: 'numeric' },
      { name: 'avg_qty', type: 'float8' },
      { name: 'min_at', type: 'timestamptz' },
      { name: 'max_region', type: 'text' },
    ]);
    expect(r.rows).toHaveLength(1);
    const [values] = r.rows as [unknown[]];
    expect(values.slice(0, 3)).toEqual(['6', '5', '3']);
    expect(values[3]).toBe('15');
    expect(values[4]).toBe('3.65');
    // 2 × 2^62 + 3 is past 2^63 - 1 and far past 2^53: a float would lose the 3.
    expect(values[5]).toBe('9223372036854775811');
    expect(values[6]).toBe(9.5);
    // Stored as text, summed as DECIMAL(38,10): ten fractional digits survive.
    expect(Number(values[7])).toBe(11.6000000001);
    expect(values[7]).toMatch(/^11\.6000000001$/);
    expect(values[8]).toBe(3);
    expect(values[9]).toBe('2023-12-31T23:59:59.000000Z');
    expect(values[10]).toBe('south');
  });

  it('counts a column without its NULLs and count_distinct without repeats', async () => {
    const r = await aggregate({ metrics: [{ fn: 'count', column: 'region' }, { fn: 'count_distinct', column: 'a "quoted" name' }] });
    expect(r.rows).toEqual([['5', '3']]);
  });
});

describe('groupBy', () => {
  it('groups in group-key order, NULL last, when no sort is given', async () => {
    const r = await aggregate({ groupBy: ['region'], metrics: [{ fn: 'count' }, { fn: 'sum', column: 'amount' }] });
    expect(r.columns.map((c) => c.name)).toEqual(['region', 'count', 'sum_amount']);
    expect(r.rows).toEqual([
      ['east', '1', '2.05'],
      ['north', '2', '0.40'],
      ['south', '2', '0.20'],
      [null, '1', '1.00'],
    ]);
  });

  it('groups by several columns, and needs no metric', async () => {
    const r = await aggregate({ groupBy: ['a "quoted" name', 'region'] });
    expect(r.rows).toEqual([
      ['p', 'north'],
      ['q', 'south'],
      ['r', 'east'],
      [null, null],
    ]);
  });

  it('applies filters before grouping', async () => {
    const r = await aggregate({
      groupBy: ['region'],
      metrics: [{ fn: 'sum', column: 'qty', as: 'units' }],
      filters: [
        { column: 'qty', op: 'gte', value: 2 },
        { column: 'region', op: 'is_not_null' },
      ],
    });
    expect(r.rows).toEqual([
      ['east', '5'],
      ['north', '3'],
      ['south', '2'],
    ]);
  });

  it('binds filter values as parameters', () => {
    const s = statement({ metrics: [{ fn: 'count' }], filters: [{ column: 'region', op: 'eq', value: "x' OR 'a'='a" }] });
    expect(s.params).toEqual(["x' OR 'a'='a"]);
    expect(s.sql).not.toContain("OR 'a'='a'");
  });
});

describe('sort and limit', () => {
  it('sorts by a metric alias, descending, NULLs last', async () => {
    const r = await aggregate({ groupBy: ['region'], metrics: [{ fn: 'max', column: 'ratio', as: 'top' }], sort: [{ column: 'top', direction: 'desc' }] });
    expect(r.rows).toEqual([
      ['south', 4],
      ['north', 2.5],
      ['east', 1],
      [null, null],
    ]);
  });

  it('sorts by a count, ascending, with the group keys ordering ties', async () => {
    const r = await aggregate({ groupBy: ['a "quoted" name'], metrics: [{ fn: 'count' }], sort: [{ column: 'count', direction: 'asc' }] });
    // Counts tie at 2 for p and q; the group key orders them.
    expect(r.rows).toEqual([
      ['r', '1'],
      [null, '1'],
      ['p', '2'],
      ['q', '2'],
    ]);
  });

  it('returns one group past the limit, so the caller knows more exist', async () => {
    const r = await aggregate({ groupBy: ['region'], metrics: [{ fn: 'count' }], limit: 2 });
    expect(r.rows.map((x) => x[0])).toEqual(['east', 'north', 'south']);
  });
});

describe('unconstrained numeric, stored as text', () => {
  let texts: ArtifactFixture;
  beforeAll(async () => {
    texts = await artifactFixture(
      [
        { name: 'n', type: 'numeric' },
        { name: 'g', type: 'int4' },
      ],
      [[['9', 1], ['10', 1], ['-2', 1], ['1.0', 2], ['1', 2], ['1.00', 2]]],
    );
  });
  afterAll(() => texts?.close());

  // Page reads already compare this storage as numbers (eq 1 matches 1.0 and 1.00); aggregates must agree.
  it('min and max compare numbers, not text', async () => {
    const s = buildAggregateStatement(texts.columns, texts.parts, { groupBy: ['g'], metrics: [{ fn: 'min', column: 'n' }, { fn: 'max', column: 'n' }], limit: 10 });
    const [first] = await texts.run(s);
    // As text, "9" > "10"; as numbers the max is 10.
    expect(first).toEqual([1, '-2', '10']);
  });

  it('count_distinct counts numerically equal values once, as PostgreSQL does', async () => {
    const s = buildAggregateStatement(texts.columns, texts.parts, { groupBy: ['g'], metrics: [{ fn: 'count_distinct', column: 'n' }], limit: 10 });
    expect(await texts.run(s)).toEqual([
      [1, '3'],
      [2, '1'],
    ]);
  });
});

describe('refusals', () => {
  const refused: [string, Partial<AggregateRequest>, RegExp][] = [
    ['no metric and no group', {}, /at least one metric or group-by/],
    ['an unknown group column', { groupBy: ['nope'] }, /"nope"/],
    ['an unknown metric column', { metrics: [{ fn: 'sum', column: 'nope' }] }, /"nope"/],
    ['a function that needs a column, without one', { metrics: [{ fn: 'sum' }] }, /"sum" needs a column/],
    ['sum of a text column', { metrics: [{ fn: 'sum', column: 'region' }] }, /numeric column; "region" is text/],
    ['avg of a timestamp', { metrics: [{ fn: 'avg', column: 'at' }] }, /numeric column; "at" is timestamptz/],
    ['two outputs of one name', { groupBy: ['region'], metrics: [{ fn: 'count', as: 'region' }] }, /Two output columns are named "region"/],
    ['a sort on something that is not an output', { groupBy: ['region'], metrics: [{ fn: 'count' }], sort: [{ column: 'qty', direction: 'asc' }] }, /Sort column "qty"/],
    ['a duplicated column name', { metrics: [{ fn: 'sum', column: 'dup' }] }, /"dup" appears 2 times/],
    ['a duplicated column name as a group', { groupBy: ['dup'] }, /"dup" appears 2 times/],
  ];
  for (const [label, request, message] of refused) {
    it(`refuses ${label} with VALIDATION_ERROR`, () => {
      expect(() => statement(request)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(message) }));
    });
  }

  it('refuses an unknown filter op with UNSUPPORTED_CAPABILITY', () => {
    expect(() => statement({ metrics: [{ fn: 'count' }], filters: [{ column: 'qty', op: 'regex', value: '.' }] })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_CAPABILITY' }));
  });
});
