/**
 * The files export's two ways of writing a CSV record give the same bytes:
 * DuckDB's SQL (csv-line-sql.ts) and JavaScript (value-text.ts with
 * csvRecord), value by value, over the edges of every type the SQL path
 * takes: doubles across the whole exponent range and at the borders where
 * either side switches between plain and exponent notation, -0, NaN and
 * the infinities, BC and infinite dates and timestamps, years past 9999,
 * and text that must be quoted. The byte cap of the export counts these
 * bytes, computed in SQL (csv-length-sql.ts): each record's length is checked
 * against the JavaScript record's bytes too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { csvLinesSql } from '../../../src/datasources/files/export/csv-line-sql.ts';
import { withCsvLengthSql } from '../../../src/datasources/files/export/csv-length-sql.ts';
import { valueText } from '../../../src/datasources/files/export/value-text.ts';
import { csvRecord } from '../../../src/worker/export/csv-record.ts';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
});

afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

/**
 * The records of `sql` both ways, each side's lines in order; and the
 * lengths the export's byte cap counts (table-source.ts) checked against
 * the JavaScript records' bytes.
 */
async function bothWays(sql: string): Promise<{ js: string[]; duck: string[]; types: DuckDBType[] }> {
  const prepared = await connection.prepare(sql);
  const types = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnType(i));
  const names = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnName(i));
  const texts = types.map((t, i) => valueText(t, names[i]!));
  const rows = (await connection.runAndReadAll(sql)).getRows();
  const js = rows.map((row) => csvRecord(row.map((v, c) => (v === null ? null : texts[c]!(v)))).slice(0, -1));
  const lines = csvLinesSql(sql, types);
  expect(lines).not.toBeNull();
  const duck = (await connection.runAndReadAll(lines!)).getRows().map((row) => String(row[0]));
  const measured = (await connection.runAndReadAll(withCsvLengthSql(sql, types)!)).getRows();
  const lengths = measured.map((row) => Number(row[types.length]));
  // The statement's own values come first, unchanged.
  expect(measured.map((row) => row.slice(0, types.length).map(String))).toEqual(rows.map((row) => row.map(String)));
  expect(lengths).toEqual(js.map((line) => Buffer.byteLength(line) + 1));
  return { js, duck, types };
}

describe('a files export writes the same CSV from SQL as from JavaScript', () => {
  it('for doubles of every magnitude and at each notation border', async () => {
    const borders = [
      '0', '-0.0', '1', '-1', '0.1', '1.000001', '1000001', '123456.789', '1e-4', '9.99e-5', '1e-5', '1.2345e-5', '1e-6', '9.999999e-7', '1e-7',
      '1.5e-7', '5e-324', '2.2250738585072014e-308', '1e15', '1e16', '1.234e16', '9007199254740993', '1e20', '1.2345678901234568e20',
      '9.999999999999999e20', '1e21', '1e22', '1.5e300', '1.7976931348623157e308', '-1.7976931348623157e308', '-4.2e-9', '-3e17',
      'NaN', 'Infinity', '-Infinity',
    ];
    const fixed = borders.map((b) => `SELECT '${b}'::DOUBLE AS x`).join(' UNION ALL ');
    const random = `SELECT (random() * 2 - 1) * pow(10, floor(random() * 620) - 310) AS x FROM range(10000)`;
    const integral = `SELECT round((random() * 2 - 1) * pow(10, floor(random() * 25))) AS x FROM range(5000)`;
    // Drawn once into a table: both ways must read the same values.
    await connection.run('SELECT setseed(0.42)');
    await connection.run(`CREATE TEMP TABLE doubles AS SELECT row_number() OVER () AS i, x FROM (${fixed} UNION ALL ${random} UNION ALL ${integral})`);
    const { js, duck } = await bothWays('SELECT x, NULL::DOUBLE AS n FROM doubles ORDER BY i');
    expect(js.length).toBe(borders.length + 15_000);
    const differing = js.flatMap((line, i) => (duck[i] === line ? [] : [`${line} | ${duck[i]}`]));
    expect(differing).toEqual([]);
  });

  it('for the doubles of the usual magnitudes, whose length comes from their JSON number', async () => {
    // Between 1e-4 and 1e15 a double's length is counted on to_json's digits, not on the text the record holds:
    // a hundred thousand of any bits in that range, decimals of few places and the neighbours of each power of ten.
    let seed = 0x9e3779b9;
    const next = () => ((seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
    const bits = new DataView(new ArrayBuffer(8));
    const values: number[] = [];
    while (values.length < 100_000) {
      bits.setUint32(0, next() * 2 ** 32);
      bits.setUint32(4, next() * 2 ** 32);
      const x = bits.getFloat64(0);
      if (Math.abs(x) >= 1e-4 && Math.abs(x) < 1e15) values.push(x);
    }
    for (let i = 0; i < 50_000; i++) values.push(Math.round((next() - 0.5) * 10 ** (2 + Math.floor(next() * 13))) / 10 ** Math.floor(next() * 9));
    for (let e = -4; e < 15; e++) for (const d of [-2, -1, 0, 1, 2]) values.push(10 ** e + d * 10 ** e * Number.EPSILON, -(10 ** e));
    await connection.run('CREATE TABLE usual_doubles (i INTEGER, x DOUBLE)');
    const appender = await connection.createAppender('usual_doubles');
    values.forEach((x, i) => {
      appender.appendInteger(i);
      appender.appendDouble(x);
      appender.endRow();
    });
    appender.closeSync();
    const { js, duck } = await bothWays('SELECT x FROM usual_doubles ORDER BY i');
    expect(js.length).toBe(values.length);
    expect(js.slice(0, 1000)).toEqual(values.slice(0, 1000).map(String));
    expect(duck).toEqual(js);
  });

  it('for integers, decimals and booleans at their limits', async () => {
    const { js, duck } = await bothWays(`SELECT * FROM (VALUES
      (127::TINYINT, (-32768)::SMALLINT, 2147483647, (-9223372036854775808)::BIGINT, 255::UTINYINT, 18446744073709551615::UBIGINT,
       170141183460469231731687303715884105727::HUGEINT, 1234567890123456789012345678.1234567890::DECIMAL(38,10), (-0.05)::DECIMAL(12,2), 5::DECIMAL(3,0), true),
      (0::TINYINT, 0::SMALLINT, 0, 0::BIGINT, 0::UTINYINT, 0::UBIGINT, (-170141183460469231731687303715884105728)::HUGEINT, (-0.0000000001)::DECIMAL(38,10),
       12.50::DECIMAL(12,2), 0::DECIMAL(3,0), false),
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL))`);
    expect(duck).toEqual(js);
    expect(js[0]).toContain(',true');
  });

  it('for dates and timestamps, BC, past 9999 and infinite', async () => {
    const { js, duck } = await bothWays(`SELECT d, ts, tstz FROM (VALUES
      (DATE '2026-01-31', TIMESTAMP '2026-01-31 23:59:59.123456', TIMESTAMPTZ '2026-01-31 23:59:59.123456+02'),
      (DATE '0044-03-15 (BC)', TIMESTAMP '0044-03-15 (BC) 12:00:00.5', TIMESTAMPTZ '0001-01-01 (BC) 00:00:00+00'),
      (DATE '0001-01-01', TIMESTAMP '0001-01-01 00:00:00', TIMESTAMPTZ '0001-01-01 00:00:00+00'),
      (DATE '12345-06-07', TIMESTAMP '10000-01-01 00:00:00.000001', TIMESTAMPTZ '1970-01-01 00:00:00+00'),
      ('infinity'::DATE, 'infinity'::TIMESTAMP, '-infinity'::TIMESTAMPTZ),
      ('-infinity'::DATE, '-infinity'::TIMESTAMP, 'infinity'::TIMESTAMPTZ),
      (NULL, NULL, NULL)) t(d, ts, tstz)`);
    expect(duck).toEqual(js);
    expect(js[1]).toContain('0044-03-15 BC');
  });

  it('for text that must be quoted, and the empty string apart from NULL', async () => {
    const texts = ['plain', '', 'a,b', 'say "hi"', 'line\nbreak', 'cr\rhere', '\\.', ' ', 'ünï ✓ 👩‍💻', 'tab\there \\ back'];
    const values = texts.map((t) => `(${`'${t.replaceAll("'", "''")}'`}, 1)`).join(', ');
    const two = await bothWays(`SELECT * FROM (VALUES ${values}, (NULL, 1)) t(s, n)`);
    expect(two.duck).toEqual(two.js);
    expect(two.js).toContain('"",1');
    expect(two.js).toContain(',1');
    // `\.` alone on its line is quoted only when it is the only column.
    const one = await bothWays(`SELECT s FROM (VALUES ${values}) t(s, n)`);
    expect(one.duck).toEqual(one.js);
    expect(one.js).toContain('"\\."');
  });

  it('keeps the statement\u2019s order and reads columns by position, whatever their names', async () => {
    const { js, duck } = await bothWays('SELECT 2 AS a, 1 AS a, x FROM range(5) t(x) ORDER BY x DESC -- a comment last');
    expect(duck).toEqual(js);
    expect(duck[0]).toBe('2,1,4');
  });

  it('leaves a result with another type to JavaScript', async () => {
    const prepared = await connection.prepare("SELECT 1.5::FLOAT AS f, '\\x00'::BLOB AS b");
    expect(csvLinesSql('SELECT 1', [prepared.columnType(0)])).toBeNull();
    expect(csvLinesSql('SELECT 1', [prepared.columnType(1)])).toBeNull();
  });
});
