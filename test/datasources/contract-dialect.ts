/**
 * The driver's SQL dialect, put together as the semantic compiler puts it
 * and run on the engine: quoting, NULLs-last ordering, LIMIT, bound
 * parameters of each semantic type, text matching, date truncation and
 * table names mean what the contract says.
 */
import { expect, it } from 'vitest';
import type { ContractContext } from './driver-contract.ts';

/** The dialect's pieces, put together as the semantic compiler puts them, over the fixture's numbers. */
export function dialectCases({ fixture, under, exports }: ContractContext): void {
  const d = under.driver.dialect;
  const q = (name: string) => d.quoteIdentifier(name);
  const numbers = `(${fixture.numbers.sql}) ${q('numbers')}`;

  it('quotes identifiers, orders with NULLs last, and limits, as the engine reads them', async () => {
    const odd = 'we"ird Name';
    const top = await exports.run(under, `SELECT ${q('label')} AS ${q(odd)} FROM ${numbers} ORDER BY ${d.orderBy(q('n'), 'desc')} ${d.limit(3)}`);
    expect(top.columns.map((c) => c.name)).toEqual([odd]);
    const total = fixture.numbers.rows;
    expect(top.rows).toEqual([[`row ${total}`], [`row ${total - 1}`], [`row ${total - 2}`]]);
    for (const direction of ['asc', 'desc'] as const) {
      const run = await exports.run(under, `SELECT ${q('v')} FROM (${fixture.nullAndEmpty}) ${q('t')} ORDER BY ${d.orderBy(q('v'), direction)}`);
      expect(run.rows, direction).toEqual([[''], [''], [null], [null]]);
    }
  });

  it('binds parameters of each type, and matches text by contains and starts-with', async () => {
    const where = (test: string) => `SELECT ${q('label')} FROM ${numbers} WHERE ${test} ORDER BY ${d.orderBy(q('n'), 'asc')}`;
    const contains = await exports.run(under, where(d.contains(q('label'), d.parameter(1, 'string'))), { params: ['9999'] });
    const labels = Array.from({ length: fixture.numbers.rows }, (_, i) => `row ${i + 1}`);
    expect(contains.rows.flat()).toEqual(labels.filter((label) => label.includes('9999')));
    const starts = await exports.run(under, where(`${d.startsWith(q('label'), d.parameter(1, 'string'))} AND ${q('n')} < ${d.parameter(2, 'number')}`), { params: ['row 2', 30] });
    expect(starts.rows.flat()).toEqual(labels.slice(0, 29).filter((label) => label.startsWith('row 2')));
    const flag = await exports.run(under, `SELECT ${d.parameter(1, 'boolean')} AS ${q('flag')}`, { params: [true] });
    expect(flag.rows).toEqual([[true]]);
  });

  it('truncates dates to each grain, a date staying a date', async () => {
    const grains = { day: '2026-05-17', week: '2026-05-11', month: '2026-05-01', quarter: '2026-04-01', year: '2026-01-01' } as const;
    for (const [grain, expected] of Object.entries(grains) as [keyof typeof grains, string][]) {
      const run = await exports.run(under, `SELECT ${d.dateTrunc(grain, d.parameter(1, 'date'), 'date')} AS ${q('d')}`, { params: ['2026-05-17'] });
      expect(run.rows, grain).toEqual([[expected]]);
      const stamp = await exports.run(under, `SELECT ${d.dateTrunc(grain, d.parameter(1, 'timestamp'), 'timestamp')} AS ${q('t')}`, { params: ['2026-05-17T10:11:12Z'] });
      // A zoned engine ends the value with Z, a plain one does not: the instant is what the grain fixes.
      expect(String(stamp.rows[0]![0]).replace(/Z$/, ''), grain).toBe(`${expected}T00:00:00.000000`);
    }
  });

  it('splits a table name as a person writes it', () => {
    const { schema, table } = fixture.introspection;
    expect(d.splitTableName(`${schema}.${table.name}`)).toEqual([schema, table.name]);
    expect(d.quoteRelation(`${schema}.${table.name}`)).toBe(`${q(schema)}.${q(table.name)}`);
  });
}
