/**
 * The JavaScript encoding of stored values (value-json-js.ts) against
 * DuckDB's (value-encoding.ts), value by value: a window of rows served from
 * a read worker's memory must give exactly what the same page gives when
 * DuckDB encodes it. Values go through a Parquet file, as stored parts do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteLiteral, type StorageKind } from '../../src/columns/column-plan.ts';
import { valueEncoder } from '../../src/columns/value-json-js.ts';
import { valueJsonExpression } from '../../src/columns/value-encoding.ts';

/** Each kind's DuckDB type and edge values, as SQL. */
const CASES: { storage: StorageKind; duckType: string; values: string[] }[] = [
  { storage: 'bool', duckType: 'BOOLEAN', values: ['true', 'false'] },
  { storage: 'int', duckType: 'INTEGER', values: ['0', '-2147483648', '2147483647', '-1'] },
  { storage: 'int8', duckType: 'BIGINT', values: ['0', '-9223372036854775808', '9223372036854775807', '9007199254740993', '-1'] },
  {
    storage: 'float',
    duckType: 'DOUBLE',
    values: ['0.1', '-0.0', '0.0', '1e300', '5e-324', '1.7976931348623157e308', "'NaN'", "'Infinity'", "'-Infinity'", '123456789.123', '1e21', '1e-7', '9007199254740993', '0.30000000000000004', '-2.5e-300', '100', '3.14159265358979'],
  },
  { storage: 'decimal', duckType: 'DECIMAL(5,2)', values: ['0', '-0.01', '123.45', '-999.99', '0.5', '-1'] },
  { storage: 'decimal', duckType: 'DECIMAL(10,0)', values: ['0', '-1234567890', '9999999999'] },
  { storage: 'decimal', duckType: 'DECIMAL(18,6)', values: ['-0.000001', '123456789012.345678', '0.000100'] },
  { storage: 'decimal', duckType: 'DECIMAL(38,10)', values: ['9999999999999999999999999999.9999999999', '-0.0000000001', '1'] },
  { storage: 'numeric_text', duckType: 'VARCHAR', values: ["'1e400'", "'-0.000'", "'NaN'", "'123456789012345678901234567890.5'"] },
  { storage: 'text', duckType: 'VARCHAR', values: ["''", `'a"b\\c'`, "chr(1) || chr(31) || chr(127)", "'line' || chr(10) || 'tab' || chr(9)", "'😀 é ü ∑'", "chr(8232) || chr(8233)", "'</script>'", "'null'"] },
  { storage: 'bytea', duckType: 'VARCHAR', values: ["'\\x00ff10'", "'\\x'"] },
  {
    storage: 'date',
    duckType: 'DATE',
    values: ["DATE '1970-01-01'", "DATE '0001-01-01'", 'make_date(0, 12, 31)', 'make_date(-43, 3, 15)', 'make_date(5, 6, 7)', 'make_date(12345, 1, 1)', "DATE '2000-02-29'", "DATE '1969-12-31'", "'infinity'::DATE", "'-infinity'::DATE", 'make_date(-4712, 1, 1)'],
  },
  ...(['timestamp', 'timestamptz'] as const).map((storage) => {
    const duckType = storage === 'timestamp' ? 'TIMESTAMP' : 'TIMESTAMPTZ';
    return {
      storage,
      duckType,
      values: [
        "TIMESTAMP '1970-01-01 00:00:00'",
        "TIMESTAMP '1969-12-31 23:59:59.5'",
        "TIMESTAMP '2000-02-29 23:59:59.999999'",
        "TIMESTAMP '0001-01-01 00:00:00'",
        'make_timestamp(-43, 3, 15, 12, 30, 45.123456)',
        'make_timestamp(0, 1, 1, 0, 0, 0)',
        'make_timestamp(7, 8, 9, 1, 2, 3.000001)',
        'make_timestamp(12345, 6, 7, 8, 9, 10)',
        "TIMESTAMP '2026-12-02 03:04:05.678901'",
        "'infinity'::TIMESTAMP",
        "'-infinity'::TIMESTAMP",
      ].map((v) => `CAST(${v} AS ${duckType})`),
    };
  }),
];

let dir: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'value-json-js-'));
  duck = await (await DuckDBInstance.create(':memory:')).connect();
  await duck.run("SET TimeZone = 'UTC'");
});

afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('valueEncoder', () => {
  it.each(CASES.map((c) => [`${c.storage} ${c.duckType}`, c] as const))('gives what DuckDB encodes, for %s', async (_name, { storage, duckType, values }) => {
    const file = join(dir, `${storage}-${duckType.replace(/\W/g, '_')}.parquet`);
    const rows = values.map((v, i) => `SELECT ${i} AS n, CAST(${v} AS ${duckType}) AS v`).join(' UNION ALL ');
    await duck.run(`COPY (${rows} ORDER BY n) TO ${quoteLiteral(file)} (FORMAT parquet, COMPRESSION snappy)`);
    const read = await duck.runAndReadAll(`SELECT v, CAST(${valueJsonExpression(storage, 'v')} AS VARCHAR) AS j FROM read_parquet(${quoteLiteral(file)}) ORDER BY n`);
    const encode = valueEncoder(storage)!;
    expect(encode).not.toBeNull();
    expect(read.currentRowCount).toBe(values.length);
    for (let row = 0; row < values.length; row++) {
      const fromDuckdb = JSON.parse(String(read.value(1, row))) as unknown;
      const fromJs = encode(read.value(0, row));
      // Object.is: -0 stays -0 in both.
      expect({ value: values[row], json: fromJs, negativeZero: Object.is(fromJs, -0) }).toEqual({ value: values[row], json: fromDuckdb, negativeZero: Object.is(fromDuckdb, -0) });
    }
  });

  it('has no encoder for JSON arrays, which only DuckDB encodes', () => {
    expect(valueEncoder('json_array')).toBeNull();
  });
});
