/**
 * The SQLite kind's pure decisions: which library each runtime loads, the
 * URL forms it takes and refuses, the affinity and plan of a column, and
 * the dialect's date truncation to Monday weeks, run on the engine this
 * runtime loads.
 */
import { describe, expect, it } from 'vitest';
import { kindOf } from '../../../src/datasources/drivers.ts';
import { currentLibrary, libraryFor, openReadOnly } from '../../../src/datasources/sqlite/engine/open-connection.ts';
import { affinityOf, planColumn, valueText, valueWriter } from '../../../src/datasources/sqlite/sqlite-column-types.ts';
import type { SqliteValue } from '../../../src/datasources/sqlite/engine/sqlite-connection.ts';
import { CsvChunkWriter } from '../../../src/worker/export/csv-chunk-writer.ts';
import { csvRecord } from '../../../src/worker/export/csv-record.ts';
import { sqliteDialect } from '../../../src/datasources/sqlite/sqlite-dialect.ts';
import { sqliteFileOf } from '../../../src/datasources/sqlite/sqlite-url.ts';
import { SluiceError } from '../../../src/errors.ts';
import { SqliteTestFile } from './sqlite-test-file.ts';

describe('the SQLite library of each runtime', () => {
  it('is bun:sqlite on Bun, node:sqlite on Deno and on Node from 22.13, better-sqlite3 on Node 20', () => {
    expect(libraryFor({ bun: true, deno: false, nodeVersion: '24.3.0' })).toBe('bun:sqlite');
    expect(libraryFor({ bun: false, deno: true, nodeVersion: '22.0.0' })).toBe('node:sqlite');
    expect(libraryFor({ bun: false, deno: false, nodeVersion: '24.0.0' })).toBe('node:sqlite');
    expect(libraryFor({ bun: false, deno: false, nodeVersion: '22.13.0' })).toBe('node:sqlite');
    expect(libraryFor({ bun: false, deno: false, nodeVersion: '22.12.1' })).toBe('better-sqlite3');
    expect(libraryFor({ bun: false, deno: false, nodeVersion: '20.18.0' })).toBe('better-sqlite3');
  });

  it('opens with the library this runtime chose, read-only and never creating a file', async () => {
    const file = new SqliteTestFile('never-created.db');
    try {
      await expect(openReadOnly(file.file, { busyTimeoutMs: 0 })).rejects.toBeDefined();
      await (await file.writable()).close();
      const connection = await openReadOnly(file.file, { busyTimeoutMs: 0 });
      expect(connection.library).toBe(currentLibrary());
      expect(connection.all('PRAGMA query_only')).toEqual([{ query_only: 1n }]);
      connection.close();
    } finally {
      file.remove();
    }
  });
});

describe('SQLite datasource URLs', () => {
  it('names the kind by its scheme and the file by its absolute path', () => {
    expect(kindOf('sqlite:///var/data/shop.db')).toBe('sqlite');
    expect(sqliteFileOf('sqlite:///var/data/shop.db')).toBe('/var/data/shop.db');
    expect(sqliteFileOf('sqlite:///var/data/my%20shop.db')).toBe('/var/data/my shop.db');
  });

  it.each(['sqlite:shop.db', 'sqlite:/shop.db', 'sqlite://host/var/shop.db', 'sqlite://user:secret@host/x.db', 'sqlite:///var/data/', 'sqlite:///x.db?mode=rwc'])(
    'refuses %s, without echoing it',
    (url) => {
      let error: unknown;
      try {
        sqliteFileOf(url);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SluiceError);
      expect((error as SluiceError).code).toBe('VALIDATION_ERROR');
      expect((error as SluiceError).message).not.toContain('secret');
    },
  );
});

describe('column types', () => {
  it("follows SQLite's affinity rules, in their order", () => {
    expect(affinityOf('BIGINT')).toBe('INTEGER');
    expect(affinityOf('FLOATING POINT')).toBe('INTEGER');
    expect(affinityOf('VARCHAR(20)')).toBe('TEXT');
    expect(affinityOf('CHARINT')).toBe('INTEGER');
    expect(affinityOf('BLOB')).toBe('BLOB');
    expect(affinityOf('DOUBLE PRECISION')).toBe('REAL');
    expect(affinityOf('DECIMAL(10,2)')).toBe('NUMERIC');
    expect(affinityOf('DATETIME')).toBe('NUMERIC');
  });

  it('plans a declared column by its affinity and an undeclared one by its first class', () => {
    expect(planColumn('a', 'BOOLEAN', 'null')).toEqual({ name: 'a', type: 'boolean', storage: 'bool' });
    expect(planColumn('a', 'TIMESTAMP', 'null').storage).toBe('text');
    expect(planColumn('a', 'NUMERIC(12,2)', 'null').storage).toBe('numeric_text');
    expect(planColumn('a', null, 'real')).toEqual({ name: 'a', type: 'real', storage: 'float' });
    expect(planColumn('a', '', 'blob').storage).toBe('bytea');
  });

  it('converts a value of another class only where that is exact', () => {
    const real = planColumn('r', 'REAL', 'null');
    expect(valueText(real, 2n ** 53n)).toBe('9007199254740992');
    expect(() => valueText(real, 2n ** 53n + 1n)).toThrow(/CAST\("r" AS TEXT\)/);
    const flag = planColumn('f', 'BOOLEAN', 'null');
    expect([valueText(flag, 0n), valueText(flag, 1n)]).toEqual(['false', 'true']);
    expect(() => valueText(flag, 2n)).toThrow(/"f"/);
    expect(() => valueText(planColumn('t', 'TEXT', 'null'), 1.5)).toThrow(/REAL value among text/);
    expect(() => valueText(planColumn('b', 'BLOB', 'null'), 'x')).toThrow(/TEXT value among blobs/);
  });

  it('writes each value into CSV bytes as valueText gives it, or fails the same way', () => {
    const values: SqliteValue[] = [
      null, 0n, 1n, 2n, -7n, 2n ** 53n - 1n, -(2n ** 53n), 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 10n ** 15n, 10n ** 15n - 1n,
      0, -0, 1.5, -2.25, 0.1 + 0.2, 1 / 3, 12345.67, 1e15, 1e21, 1e-7, 0.000001, Infinity, -Infinity, 1.000001 * 3,
      '', 'plain', 'a,b', 'say "hi"', 'line\nbreak', '\\.', 'é ü 😀', '12.50', new Uint8Array([0, 1, 2, 250]), new Uint8Array(0),
    ];
    for (const declared of ['INTEGER', 'REAL', 'NUMERIC(12,2)', 'TEXT', 'BOOLEAN', 'BLOB', 'DATETIME']) {
      const column = planColumn('c', declared, 'null');
      const write = valueWriter(column);
      for (const width of [1, 2]) {
        for (const value of values) {
          let expected: string | Error;
          try {
            expected = csvRecord(Array.from({ length: width }, () => valueText(column, value)));
          } catch (error) {
            expected = error as Error;
          }
          const writer = new CsvChunkWriter(width, 64);
          const written = () => {
            for (let i = 0; i < width; i++) write(writer, value);
            writer.endRecord();
            return Buffer.from(writer.take().bytes).toString('utf8');
          };
          if (expected instanceof Error) expect(written, `${declared} ${String(value)}`).toThrow(expected.message);
          else expect(written(), `${declared} ${String(value)} ×${width}`).toBe(expected);
        }
      }
    }
  });
});

describe('the SQLite dialect on the engine', () => {
  it('truncates to Monday weeks and to quarters from any day', async () => {
    const file = new SqliteTestFile('dialect.db');
    try {
      await (await file.writable()).close();
      const db = await openReadOnly(file.file, { busyTimeoutMs: 0 });
      const truncate = (grain: 'week' | 'quarter', day: string) => db.all(`SELECT ${sqliteDialect.dateTrunc(grain, '?1', 'date')} AS d`, [day])[0]!.d;
      // 2026-05-11 is a Monday; the Sunday after it ends the same week.
      for (const day of ['2026-05-11', '2026-05-13', '2026-05-17']) expect(truncate('week', day), day).toBe('2026-05-11');
      expect(truncate('week', '2026-05-18')).toBe('2026-05-18');
      expect(truncate('quarter', '2026-12-31')).toBe('2026-10-01');
      expect(truncate('quarter', '2026-01-01')).toBe('2026-01-01');
      db.close();
    } finally {
      file.remove();
    }
  });
});
