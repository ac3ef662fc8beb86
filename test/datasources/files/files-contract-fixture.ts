/**
 * The files datasource's fixture for the driver contract suite: a folder
 * the test builds in a temporary directory, its files written by DuckDB
 * itself (Parquet, CSV and JSON) in the subfolder `driver_contract`, which
 * is their schema. The statements each case runs are DuckDB's, and the
 * values what the contract's encoding makes of DuckDB's types.
 */
import { join } from 'node:path';
import { quoteLiteral } from '../../../src/columns/column-plan.ts';
import type { DriverFixture, ValueCase } from '../driver-fixture.ts';

export const SCHEMA = 'driver_contract';
const S = SCHEMA;
const NUMBERS = 30_000;
const WIDE_LINE = 'line "one", ünï ✓\n';
const WIDE_REPEAT = 200_000;

/** A DuckDB string literal of `text`, line breaks and all. */
function literal(text: string): string {
  return quoteLiteral(text);
}

function create(dir: string): string[] {
  const file = (name: string) => quoteLiteral(join(dir, S, name));
  return [
    `COPY (SELECT * FROM (VALUES ('eu', 1, 'Ada, L.', 'ada@example.com'), ('us', 2, 'Grace', NULL)) t(region, id, "display, name", email))
       TO ${file('dc_customers.csv')} (FORMAT csv, HEADER true)`,
    `COPY (SELECT 10::BIGINT AS id, 'eu' AS customer_region, 1 AS customer_id, 12.50::DECIMAL(12,2) AS total, TIMESTAMPTZ '2026-01-31 10:00:00+00' AS placed_at)
       TO ${file('dc_orders.parquet')} (FORMAT parquet)`,
    `COPY (SELECT 1 AS customer_id, 12.5 AS total) TO ${file('dc_order_totals.json')} (FORMAT json)`,
    `COPY (SELECT * FROM (VALUES
       (1, 127::TINYINT, 32767::SMALLINT, 2147483647, 9223372036854775807::BIGINT, 255::UTINYINT, 65535::USMALLINT, 4294967295::UINTEGER, 18446744073709551615::UBIGINT,
        1234567890123456789012345678.1234567890::DECIMAL(38,10), 12.34::DECIMAL(4,2), 1.1::FLOAT, 1.7976931348623157e308::DOUBLE, true,
        DATE '2026-01-31', TIMESTAMP '2026-01-31 23:59:59.123456', TIMESTAMPTZ '2026-01-31 23:59:59.123456+02', '\\x00\\xFF\\x10'::BLOB,
        '{"a": [1, 2], "b": "ü"}'::JSON, [1, 2, NULL], {'k': 'v w', 'n': 9223372036854775807}, MAP {'x': 1.5::DOUBLE},
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID, INTERVAL '1 day 02:03:04.5', TIME '12:34:56.789'),
       (2, (-128)::TINYINT, (-32768)::SMALLINT, -2147483648, (-9223372036854775808)::BIGINT, 0::UTINYINT, 0::USMALLINT, 0::UINTEGER, 0::UBIGINT,
        -0.0000000001::DECIMAL(38,10), -0.5::DECIMAL(4,2), -0.5::FLOAT, 'NaN'::DOUBLE, false,
        DATE '0044-03-15 (BC)', TIMESTAMP '2000-02-29 00:00:00', TIMESTAMPTZ '1970-01-01 00:00:00+00', ''::BLOB,
        '[]'::JSON, [], {'k': '', 'n': -1}, MAP {},
        '00000000-0000-0000-0000-000000000000'::UUID, INTERVAL '3 months', TIME '00:00:00'),
       (3, 0::TINYINT, 0::SMALLINT, 0, 0::BIGINT, 1::UTINYINT, 1::USMALLINT, 1::UINTEGER, 1::UBIGINT,
        0::DECIMAL(38,10), 0::DECIMAL(4,2), 'Infinity'::FLOAT, '-Infinity'::DOUBLE, NULL,
        'infinity'::DATE, TIMESTAMP '0044-03-15 (BC) 12:00:00.5', '-infinity'::TIMESTAMPTZ, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
     ) t(id, i1, i2, i4, i8, u1, u2, u4, u8, dec, d2, f4, f8, b, d, ts, tstz, bin, j, l, s, m, u, iv, tm)) TO ${file('dc_values.parquet')} (FORMAT parquet)`,
    `COPY (SELECT * FROM (VALUES (1, '👩‍💻 🎉 𝄞'), (2, 'e' || chr(769) || ' n' || chr(771)), (3, 'שלום עולם ' || chr(8207) || 'abc'),
       (4, 'a,b "c"' || chr(10) || 'd' || chr(13) || chr(10)), (5, '\\.'), (6, 'tab' || chr(9) || 'here \\ back'), (7, ' ')) t(id, t))
       TO ${file('dc_texts.json')} (FORMAT json)`,
    `COPY (SELECT range::INTEGER AS n, 'row ' || range AS label FROM range(1, ${NUMBERS + 1})) TO ${file('dc_numbers.csv')} (FORMAT csv, HEADER true)`,
    `COPY (SELECT repeat(${literal(WIDE_LINE)}, ${WIDE_REPEAT}) AS w) TO ${file('dc_wide.parquet')} (FORMAT parquet)`,
  ];
}

const values = (columns: string) => `SELECT ${columns} FROM ${S}.dc_values ORDER BY id`;

const valueCases: ValueCase[] = [
  {
    label: 'integers at their extremes, 64-bit and wider as exact strings',
    sql: values('i1, i2, i4, i8, u1, u2, u4, u8'),
    columns: ['tinyint', 'smallint', 'integer', 'bigint', 'utinyint', 'usmallint', 'uinteger', 'ubigint'].map((type, i) => ({ name: ['i1', 'i2', 'i4', 'i8', 'u1', 'u2', 'u4', 'u8'][i]!, type })),
    rows: [
      [127, 32767, 2147483647, '9223372036854775807', 255, 65535, '4294967295', '18446744073709551615'],
      [-128, -32768, -2147483648, '-9223372036854775808', 0, 0, '0', '0'],
      [0, 0, 0, '0', 1, 1, '1', '1'],
      [null, null, null, null, null, null, null, null],
    ],
  },
  {
    label: 'hugeint and uhugeint as exact strings',
    sql: `SELECT * FROM (VALUES (1, 170141183460469231731687303715884105727::HUGEINT, 340282366920938463463374607431768211455::UHUGEINT),
            (2, (-170141183460469231731687303715884105728)::HUGEINT, 0::UHUGEINT), (3, NULL, NULL)) t(id, h, uh) ORDER BY id`,
    columns: [{ name: 'id', type: 'integer' }, { name: 'h', type: 'hugeint' }, { name: 'uh', type: 'uhugeint' }],
    rows: [[1, '170141183460469231731687303715884105727', '340282366920938463463374607431768211455'], [2, '-170141183460469231731687303715884105728', '0'], [3, null, null]],
  },
  {
    label: 'decimals exact, up to 38 digits',
    sql: values('dec, d2'),
    columns: [{ name: 'dec', type: 'decimal(38,10)' }, { name: 'd2', type: 'decimal(4,2)' }],
    rows: [['1234567890123456789012345678.1234567890', '12.34'], ['-0.0000000001', '-0.50'], ['0.0000000000', '0.00'], [null, null]],
  },
  {
    label: 'floats, float as its shortest text, non-finite as strings',
    sql: values('f4, f8'),
    columns: [{ name: 'f4', type: 'float' }, { name: 'f8', type: 'double' }],
    rows: [[1.1, 1.7976931348623157e308], [-0.5, 'NaN'], ['Infinity', '-Infinity'], [null, null]],
  },
  {
    label: 'booleans',
    sql: values('b'),
    columns: [{ name: 'b', type: 'boolean' }],
    rows: [[true], [false], [null], [null]],
  },
  {
    label: 'dates and timestamps with microseconds, UTC with Z, BC and infinity',
    sql: values('d, ts, tstz'),
    columns: [{ name: 'd', type: 'date' }, { name: 'ts', type: 'timestamp' }, { name: 'tstz', type: 'timestamp with time zone' }],
    rows: [
      ['2026-01-31', '2026-01-31T23:59:59.123456', '2026-01-31T21:59:59.123456Z'],
      ['0044-03-15 BC', '2000-02-29T00:00:00.000000', '1970-01-01T00:00:00.000000Z'],
      ['infinity', '0044-03-15T12:00:00.500000 BC', '-infinity'],
      [null, null, null],
    ],
  },
  {
    label: 'text from a JSON file: emoji, combining marks, right-to-left, CSV quoting, a lone \\., a single space',
    sql: `SELECT t FROM ${S}.dc_texts ORDER BY id`,
    columns: [{ name: 't', type: 'varchar' }],
    rows: [['👩‍💻 🎉 𝄞'], ['e\u0301 n\u0303'], ['שלום עולם \u200Fabc'], ['a,b "c"\nd\r\n'], ['\\.'], ['tab\there \\ back'], [' ']],
  },
  {
    label: 'blob as base64',
    sql: values('bin'),
    columns: [{ name: 'bin', type: 'blob' }],
    rows: [['AP8Q'], [''], [null], [null]],
  },
  {
    label: 'json as its text; lists, structs and maps as JSON text, wide integers in them as strings',
    sql: values('j, l, s, m'),
    columns: [{ name: 'j', type: 'json' }, { name: 'l', type: 'integer[]' }, { name: 's', type: 'struct("k" varchar, "n" bigint)' }, { name: 'm', type: 'map(varchar, double)' }],
    rows: [
      ['{"a": [1, 2], "b": "ü"}', '[1,2,null]', '{"k":"v w","n":"9223372036854775807"}', '{"x":1.5}'],
      ['[]', '[]', '{"k":"","n":"-1"}', '{}'],
      [null, null, null, null],
      [null, null, null, null],
    ],
  },
  {
    label: 'uuid, interval and time as DuckDB writes them',
    sql: values('u, iv, tm'),
    columns: [{ name: 'u', type: 'uuid' }, { name: 'iv', type: 'interval' }, { name: 'tm', type: 'time' }],
    rows: [['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:03:04.5', '12:34:56.789'], ['00000000-0000-0000-0000-000000000000', '3 months', '00:00:00'], [null, null, null], [null, null, null]],
  },
  {
    label: 'duplicate column names, each kept',
    sql: `SELECT 1 AS a, 'x' AS a, NULL::BIGINT AS "A"`,
    columns: [{ name: 'a', type: 'integer' }, { name: 'a', type: 'varchar' }, { name: 'A', type: 'bigint' }],
    rows: [[1, 'x', null]],
  },
];

export function filesContractFixture(dir: string): DriverFixture {
  const inFolder = (name: string) => quoteLiteral(join(dir, S, name));
  return {
    create: create(dir),
    // The test removes the whole folder when it closes; a run that died left its own temporary folder, not this one.
    drop: [],
    // DuckDB renames duplicate columns a subquery's SELECT * passes on (a, a_1): the statement stays the left side of a
    // UNION ALL, whose names and rows it keeps, and the parameter is bound on a right side that returns no row.
    bindOne: (sql) => ({ sql: `(${sql}\n) UNION ALL (SELECT * FROM (${sql}\n) AS bound WHERE CAST($1 AS INTEGER) <> 1 LIMIT 0)`, params: [1] }),
    valueCases,
    nullAndEmpty: `SELECT v FROM (VALUES (1, ''), (2, NULL), (3, NULL), (4, '')) AS t(i, v) ORDER BY i`,
    wide: { sql: `SELECT w FROM ${S}.dc_wide`, value: WIDE_LINE.repeat(WIDE_REPEAT) },
    numbers: { sql: `SELECT n, label FROM ${S}.dc_numbers ORDER BY n`, rows: NUMBERS },
    statements: {
      refused: [
        `INSERT INTO ${S}.dc_texts VALUES (100, 'x')`,
        `UPDATE ${S}.dc_texts SET t = 'x'`,
        `DELETE FROM ${S}.dc_texts`,
        `CREATE TABLE dc_new (a INTEGER)`,
        `CREATE TABLE dc_copy AS SELECT * FROM ${S}.dc_texts`,
        `CREATE VIEW dc_view AS SELECT 1`,
        `CREATE MACRO dc_macro(a) AS a + 1`,
        `DROP VIEW ${S}.dc_texts`,
        `ALTER VIEW ${S}.dc_texts RENAME TO dc_gone`,
        `COPY (SELECT 1) TO ${inFolder('written.csv')}`,
        `COPY ${S}.dc_texts TO '/tmp/dc_out.csv'`,
        `EXPORT DATABASE '/tmp/dc_export'`,
        `ATTACH '/tmp/dc.db' AS dc`,
        `ATTACH ':memory:' AS dc`,
        `DETACH dc`,
        `INSTALL httpfs`,
        `LOAD httpfs`,
        `SET allowed_directories = ['/']`,
        `SET enable_external_access = true`,
        `RESET lock_configuration`,
        `PRAGMA enable_profiling`,
        `PRAGMA database_list`,
        `CALL pragma_version()`,
        `CHECKPOINT`,
        `VACUUM`,
        `USE memory`,
        `BEGIN; SELECT 1; COMMIT`,
        `SELECT 1; SELECT 2`,
        `SELECT 1; DELETE FROM ${S}.dc_texts`,
        `PREPARE dc_plan AS SELECT 1`,
        `EXPLAIN ANALYZE SELECT 1`,
        `SELECT current_setting('allowed_directories')`,
        `SELECT * FROM duckdb_settings()`,
        `SELECT getenv('HOME')`,
        `SELECT sql FROM duckdb_views()`,
      ],
      accepted: [
        { sql: `SELECT * FROM ${S}.dc_customers`, kind: 'select', paramCount: 0 },
        { sql: `FROM ${S}.dc_customers`, kind: 'select', paramCount: 0 },
        { sql: `WITH x AS (SELECT 1 AS a) SELECT a FROM x`, kind: 'select', paramCount: 0 },
        { sql: `VALUES (1), (2)`, kind: 'select', paramCount: 0 },
        { sql: `SELECT $2::INTEGER, $1::VARCHAR`, kind: 'select', paramCount: 2 },
        { sql: `SELECT $1::VARCHAR WHERE $3::INTEGER > $2::INTEGER`, kind: 'select', paramCount: 3 },
        // DuckDB's parser splits the text when it runs: the trailing semicolon and comment stay in the text the export is given.
        { sql: `  SELECT 1 ;  `, kind: 'select', paramCount: 0, text: 'SELECT 1 ;', offset: 2 },
        { sql: `SELECT 1 AS one; -- done`, kind: 'select', paramCount: 0, text: 'SELECT 1 AS one; -- done', offset: 0 },
        { sql: `/* é😀 */; SELECT 1`, kind: 'select', paramCount: 0, text: '/* é😀 */; SELECT 1', offset: 0 },
      ],
      syntaxError: { sql: `SELECT * FROM ${S}.dc_customers WHRE id = 1`, code: 'SQL_ERROR', position: 49 },
      unknownColumn: { sql: `SELECT id, no_such_column FROM ${S}.dc_customers` },
      failsInStream: `SELECT g, CAST(CASE WHEN g = 9000 THEN 'x' ELSE CAST(g AS VARCHAR) END AS INTEGER) AS x FROM range(1, 10001) AS t(g)`,
      // COPY into the folder: the engine may reach the folder, so the run itself must refuse what the check would.
      engineWrite: { sql: `COPY (SELECT 1 AS x) TO ${inFolder('written.csv')}`, probe: `SELECT count(*)::INTEGER AS files FROM glob(${quoteLiteral(join(dir, '**'))})` },
    },
    cancel: {
      // Some tens of seconds of a cross join on one thread; one row.
      sleep: (marker) => `SELECT sum(a.range * b.range) AS slept, '${marker}' AS marker FROM range(200000) AS a, range(200000) AS b`,
      // The export half's own list of statements the engine is running (see files-contract.test.ts).
      running: (marker) => `SELECT sql FROM running_statements WHERE contains(sql, '${marker}')`,
    },
    introspection: {
      schema: S,
      table: {
        schema: S,
        name: 'dc_customers',
        kind: 'table',
        columns: [
          { name: 'region', type: 'varchar', nullable: true },
          { name: 'id', type: 'bigint', nullable: true },
          { name: 'display, name', type: 'varchar', nullable: true },
          { name: 'email', type: 'varchar', nullable: true },
        ],
        primaryKey: [],
        foreignKeys: [],
      },
      // Files declare no keys.
      child: { name: 'dc_orders', foreignKeys: [] },
      relations: ['dc_customers', 'dc_orders', 'dc_order_totals', 'dc_values', 'dc_texts', 'dc_numbers', 'dc_wide'].map((name) => ({ name, kind: 'table' as const })),
      search: { text: 'dc_order', names: ['dc_orders', 'dc_order_totals'] },
    },
  };
}
