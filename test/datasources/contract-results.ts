/**
 * What a result holds once it is stored: every value the fixture declares
 * in the contract's encoding, NULL apart from the empty string, a value of
 * megabytes whole, and the row and byte caps cut at exact rows. Each case
 * runs on both read paths (as sent, and with a bound parameter).
 */
import { expect, it } from 'vitest';
import type { ContractContext } from './driver-contract.ts';

/** How many of a result's first rows the preview carries in these cases: fewer than most results, so it is a prefix. */
const PREVIEW_ROWS = 2;

export function valueCases({ fixture, under, exports, paths }: ContractContext): void {
  for (const path of paths) {
    for (const valueCase of fixture.valueCases) {
      it(`${valueCase.label} (${path.label})`, async () => {
        const { sql, params } = path.bind(valueCase.sql);
        const run = await exports.run(under, sql, { params, previewRows: PREVIEW_ROWS });
        expect(run.columns).toEqual(valueCase.columns);
        expect(run.rows).toEqual(valueCase.rows);
        expect(run.result).toMatchObject({ rows: valueCase.rows.length, cappedBy: null });
        // The preview is read from the CSV before it becomes Parquet: it must say the same.
        expect(run.preview.columns).toEqual(valueCase.columns);
        expect(run.preview.rows).toEqual(valueCase.rows.slice(0, PREVIEW_ROWS));
      });
    }

    it(`keeps NULL and the empty string apart, also as the only column of a row (${path.label})`, async () => {
      const { sql, params } = path.bind(fixture.nullAndEmpty);
      const run = await exports.run(under, sql, { params });
      expect(run.rows).toEqual([[''], [null], [null], ['']]);
      expect(run.preview.rows).toEqual([[''], [null], [null], ['']]);
    });

    it(`keeps a value of a few MB whole (${path.label})`, async () => {
      const { sql, params } = path.bind(fixture.wide.sql);
      const run = await exports.run(under, sql, { params, previewRows: 0 });
      expect(run.rows).toHaveLength(1);
      const value = run.rows[0]![0];
      expect(typeof value).toBe('string');
      expect((value as string).length).toBe(fixture.wide.value.length);
      // A plain comparison: a failing toEqual would print megabytes.
      expect(value === fixture.wide.value, 'the wide value came back changed').toBe(true);
    });
  }
}

/** The contract's byte measure: the result as PostgreSQL's COPY (FORMAT csv) writes it; a numbers row needs no quoting. */
const csvBytes = (n: number) => Buffer.byteLength(`${n},row ${n}\n`);
const bytesUpTo = (rows: number) => Array.from({ length: rows }, (_, i) => csvBytes(i + 1)).reduce((sum, b) => sum + b, 0);

/** The stored numbers rows: n (compared as text, whatever integer type the engine gives) and its label. */
function numbersOf(rows: unknown[][]): [string, unknown][] {
  return rows.map(([n, label]) => [String(n), label]);
}
const expectedNumbers = (count: number): [string, string][] => Array.from({ length: count }, (_, i) => [String(i + 1), `row ${i + 1}`]);

export function capCases({ fixture, under, exports, paths }: ContractContext): void {
  const total = fixture.numbers.rows;

  for (const path of paths) {
    const { sql, params } = path.bind(fixture.numbers.sql);

    it(`a row cap keeps exactly that many rows and says so (${path.label})`, async () => {
      for (const maxRows of [1, 1234, total - 1]) {
        const run = await exports.run(under, sql, { params, limits: { maxRows } });
        expect(run.result, `maxRows ${maxRows}`).toMatchObject({ rows: maxRows, cappedBy: 'maxRows', bytes: bytesUpTo(maxRows) });
        expect(numbersOf(run.rows), `maxRows ${maxRows}`).toEqual(expectedNumbers(maxRows));
      }
    });

    it(`a result of exactly the row cap is whole, not capped (${path.label})`, async () => {
      const run = await exports.run(under, sql, { params, limits: { maxRows: total } });
      expect(run.result).toMatchObject({ rows: total, cappedBy: null, bytes: bytesUpTo(total) });
      expect(numbersOf(run.rows)).toEqual(expectedNumbers(total));
    });

    it(`a byte cap keeps the whole rows that fit and no part of the next (${path.label})`, async () => {
      const kept = 777;
      const budget = bytesUpTo(kept);
      for (const maxBytes of [budget, budget + Math.floor(csvBytes(kept + 1) / 2), budget + csvBytes(kept + 1) - 1]) {
        const run = await exports.run(under, sql, { params, limits: { maxBytes } });
        expect(run.result, `maxBytes ${maxBytes}`).toMatchObject({ rows: kept, cappedBy: 'maxBytes', bytes: budget });
        expect(numbersOf(run.rows), `maxBytes ${maxBytes}`).toEqual(expectedNumbers(kept));
      }
      const whole = await exports.run(under, sql, { params, limits: { maxBytes: bytesUpTo(total) } });
      expect(whole.result).toMatchObject({ rows: total, cappedBy: null });
    });
  }
}
