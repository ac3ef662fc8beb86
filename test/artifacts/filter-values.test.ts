/**
 * Filter values checked against their column before they are bound: what
 * each column type accepts (and the exact text it binds), what it refuses
 * with VALIDATION_ERROR naming the column, what each op needs of its value,
 * and that every accepted value really casts in DuckDB to the type it is
 * bound as, so no accepted value can fail later as an INTERNAL error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindType, checkFilterValue, type BoundValue } from '../../src/artifacts/filter-values.ts';
import { filterSql } from '../../src/artifacts/read-sql.ts';
import { FILTER_OPS } from '../../src/artifacts/types.ts';
import type { PlannedColumn } from '../../src/columns/column-plan.ts';
import { openDuck, planned } from './artifact-fixture.ts';

const COLUMNS = planned([
  { name: 'flag', type: 'bool' },
  { name: 'small', type: 'int4' },
  { name: 'big', type: 'int8' },
  { name: 'price', type: 'numeric(12,2)' },
  { name: 'ratio', type: 'float8' },
  { name: 'exact', type: 'numeric' },
  { name: 'day', type: 'date' },
  { name: 'at', type: 'timestamp' },
  { name: 'at_tz', type: 'timestamptz' },
  { name: 'label', type: 'text' },
]);
const column = (name: string): PlannedColumn => COLUMNS.find((c) => c.name === name)!;

/** column, value, the text (or value) bound */
const ACCEPTED: [string, unknown, BoundValue][] = [
  ['flag', true, true],
  ['flag', false, false],
  ['small', 5, '5'],
  ['small', '-2147483648', '-2147483648'],
  ['small', 2147483647, '2147483647'],
  ['big', '9223372036854775807', '9223372036854775807'],
  ['big', '-9223372036854775808', '-9223372036854775808'],
  ['big', 9007199254740991, '9007199254740991'],
  ['price', 1.005, '1.005'],
  ['price', '1e2', '100'],
  ['price', '00012.500', '12.5'],
  ['price', '-0.0', '0'],
  ['price', '.5', '0.5'],
  ['price', '-1.25E-1', '-0.125'],
  // 10 integer digits for the column's own, 28 fractional: exactly 38.
  ['price', `0.${'1'.repeat(28)}`, `0.${'1'.repeat(28)}`],
  // 36 integer digits next to the column's 2 fractional ones: exactly 38.
  ['price', `1${'0'.repeat(35)}`, `1${'0'.repeat(35)}`],
  ['ratio', 0.1, '0.1'],
  ['ratio', '1e300', '1e300'],
  ['ratio', 'NaN', 'NaN'],
  ['ratio', 'Infinity', 'Infinity'],
  ['ratio', '-Infinity', '-Infinity'],
  ['exact', '123456789012345678901234567890.5', '123456789012345678901234567890.5'],
  ['exact', -3, '-3'],
  ['day', '2024-02-29', '2024-02-29'],
  ['day', '2000-02-29', '2000-02-29'],
  ['day', 'infinity', 'infinity'],
  ['day', '-infinity', '-infinity'],
  ['day', '5881579-12-31', '5881579-12-31'],
  ['at', '2024-01-01T23:59:59.999999', '2024-01-01T23:59:59.999999'],
  ['at', '2024-01-01 10:00', '2024-01-01 10:00'],
  ['at', '294246-12-31T00:00:00', '294246-12-31T00:00:00'],
  ['at_tz', '2024-01-01T10:00:00Z', '2024-01-01T10:00:00Z'],
  ['at_tz', '2024-01-01 10:00:00+05:30', '2024-01-01 10:00:00+05:30'],
  ['at_tz', '2024-01-01T10:00:00-0800', '2024-01-01T10:00:00-0800'],
  ['at_tz', '2024-01-01', '2024-01-01'],
  ['label', '', ''],
  ['label', "it's \"x\"", "it's \"x\""],
];

/** column, value, a word the message must hold about what was expected */
const REFUSED: [string, unknown, RegExp][] = [
  ['flag', 'true', /true or false/],
  ['flag', 1, /true or false/],
  ['small', 2147483648, /from -2147483648 to 2147483647/],
  ['small', '-2147483649', /from -2147483648 to 2147483647/],
  ['small', 1.5, /an integer/],
  ['small', '1e3', /an integer/],
  ['small', 'abc', /an integer/],
  ['small', null, /an integer/],
  ['big', '9223372036854775808', /from -9223372036854775808 to 9223372036854775807/],
  // Not a safe integer: the number may already have been rounded, so only a string is exact.
  ['big', 2 ** 53 + 2, /a string for int8 beyond 2\^53/],
  ['price', 'abc', /a number or a decimal string/],
  ['price', '1.2.3', /a number or a decimal string/],
  ['price', '.', /a number or a decimal string/],
  ['price', Number.NaN, /a number or a decimal string/],
  ['price', Number.POSITIVE_INFINITY, /a number or a decimal string/],
  ['price', true, /a number or a decimal string/],
  ['price', `1${'0'.repeat(36)}`, /fits in 38 decimal digits/],
  ['price', `0.${'1'.repeat(29)}`, /fits in 38 decimal digits/],
  ['price', '1e1000000', /fits in 38 decimal digits/],
  ['ratio', 'abc', /a number or a decimal string/],
  ['ratio', 'nan', /a number or a decimal string/],
  ['exact', 'NaN', /a number or a decimal string/],
  ['exact', 'Infinity', /a number or a decimal string/],
  ['day', '2023-02-29', /real date and time/],
  ['day', '1900-02-29', /real date and time/],
  ['day', '2024-13-01', /real date and time/],
  ['day', '2024-04-31', /real date and time/],
  ['day', '5881580-01-01', /years -5877640 to 5881579/],
  ['day', '2024/01/01', /ISO 8601/],
  ['day', 20240101, /ISO 8601/],
  ['at', '294247-01-01', /years -290307 to 294246/],
  ['at', '2024-01-01T24:00:00', /real date and time/],
  ['at', '2024-01-01T10:60', /real date and time/],
  ['at_tz', '2024-01-01T10:00:00+16:00', /real date and time/],
  ['at_tz', '2024-01-01+05', /ISO 8601/],
  ['at_tz', 'yesterday', /ISO 8601/],
  ['label', 5, /a string/],
  ['label', null, /a string/],
];

describe('checkFilterValue', () => {
  for (const [name, value, bound] of ACCEPTED) {
    it(`accepts ${JSON.stringify(value)} for ${column(name).type} and binds ${JSON.stringify(bound)}`, () => {
      expect(checkFilterValue(column(name), value)).toEqual(bound);
    });
  }

  for (const [name, value, expected] of REFUSED) {
    it(`refuses ${typeof value === 'number' ? value : JSON.stringify(value)} for ${column(name).type} with VALIDATION_ERROR naming "${name}"`, () => {
      let error: unknown;
      try {
        checkFilterValue(column(name), value);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { column: name } });
      const message = (error as Error).message;
      expect(message).toContain(`"${name}" (${column(name).type})`);
      expect(message).toMatch(expected);
    });
  }
});

describe('bindType', () => {
  it('keeps the more precise of the column and the value for decimals', () => {
    expect(bindType(column('price'), '1.005')).toBe('DECIMAL(38,3)');
    expect(bindType(column('price'), '100')).toBe('DECIMAL(38,2)');
    expect(bindType(column('exact'), '1.5')).toBe('DOUBLE');
    expect(bindType(column('big'), '1')).toBe('BIGINT');
  });
});

describe('every accepted value casts in DuckDB to its bound type', () => {
  let duck: Awaited<ReturnType<typeof openDuck>>;
  beforeAll(async () => {
    duck = await openDuck();
  });
  afterAll(() => duck?.close());

  it('for each accepted case, with the value unchanged where the type keeps text', async () => {
    for (const [name, value] of ACCEPTED) {
      const c = column(name);
      const bound = checkFilterValue(c, value);
      const reader = await duck.connection.runAndReadAll(`SELECT CAST(CAST(? AS ${bindType(c, bound)}) AS VARCHAR)`, [bound]);
      const text = reader.getRowsJS()[0]![0];
      expect(text, `${name} ${String(value)}`).not.toBeNull();
      if (c.storage === 'decimal') expect(Number(text)).toBe(Number(bound));
    }
  });
});

describe('what each op needs of its value', () => {
  const sql = (filter: { column: string; op: string; value?: unknown }) => filterSql(COLUMNS, filter, []);
  const fails = (filter: { column: string; op: string; value?: unknown }, code: string, message: RegExp) =>
    expect(() => sql(filter), JSON.stringify(filter)).toThrow(expect.objectContaining({ code, message: expect.stringMatching(message) }));

  it('refuses an op outside the list with UNSUPPORTED_CAPABILITY, listing the supported ones', () => {
    let error: unknown;
    try {
      sql({ column: 'small', op: 'like', value: '1%' });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'UNSUPPORTED_CAPABILITY', details: { op: 'like', supported: [...FILTER_OPS] } });
  });

  it('in, not_in and between need an array; in and not_in 1 to 1000 values; between two', () => {
    for (const op of ['in', 'not_in', 'between']) fails({ column: 'small', op, value: 1 }, 'VALIDATION_ERROR', new RegExp(`"${op}" on "small" needs an array`));
    for (const op of ['in', 'not_in']) {
      fails({ column: 'small', op, value: [] }, 'VALIDATION_ERROR', /needs 1 to 1000 values/);
      fails({ column: 'small', op, value: Array.from({ length: 1001 }, (_, i) => i) }, 'VALIDATION_ERROR', /needs 1 to 1000 values/);
      expect(() => sql({ column: 'small', op, value: Array.from({ length: 1000 }, (_, i) => i) })).not.toThrow();
    }
    fails({ column: 'day', op: 'between', value: ['2024-01-01'] }, 'VALIDATION_ERROR', /"between" on "day" needs \[low, high\]/);
    fails({ column: 'day', op: 'between', value: ['2024-01-01', '2024-01-02', '2024-01-03'] }, 'VALIDATION_ERROR', /needs \[low, high\]/);
  });

  it('checks every element of a list against the column', () => {
    fails({ column: 'small', op: 'in', value: [1, 'x'] }, 'VALIDATION_ERROR', /"small"/);
    fails({ column: 'day', op: 'between', value: ['2024-01-01', '2024-02-30'] }, 'VALIDATION_ERROR', /"day"/);
    fails({ column: 'big', op: 'not_in', value: ['1', 2.5] }, 'VALIDATION_ERROR', /"big"/);
  });

  it('contains and starts_with need a string, on any column type', () => {
    for (const op of ['contains', 'starts_with']) {
      fails({ column: 'label', op, value: 5 }, 'VALIDATION_ERROR', new RegExp(`"${op}" on "label" needs a string`));
      expect(() => sql({ column: 'small', op, value: '12' })).not.toThrow();
      expect(() => sql({ column: 'at_tz', op, value: '2024' })).not.toThrow();
    }
  });

  it('comparisons check their one value against the column', () => {
    for (const op of ['eq', 'ne', 'lt', 'lte', 'gt', 'gte']) {
      fails({ column: 'flag', op, value: 'yes' }, 'VALIDATION_ERROR', /"flag" \(bool\) must be true or false/);
      fails({ column: 'small', op, value: [1] }, 'VALIDATION_ERROR', /"small"/);
    }
  });

  it('is_null and is_not_null take no value and bind nothing', () => {
    for (const op of ['is_null', 'is_not_null']) {
      const params: BoundValue[] = [];
      expect(filterSql(COLUMNS, { column: 'label', op, value: 'ignored' }, params)).not.toContain('?');
      expect(params).toEqual([]);
    }
  });
});
