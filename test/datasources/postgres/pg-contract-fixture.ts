/**
 * PostgreSQL's fixture for the driver contract suite: tables in a schema
 * of their own (other test files share the database), the statements each
 * case runs, and what the contract's value encoding makes of PostgreSQL's
 * types. The embedded database (PGlite) is PostgreSQL too and takes the
 * same fixture.
 */
import type { DriverFixture, ValueCase } from '../driver-fixture.ts';

const S = 'driver_contract';
const NUMBERS = 30_000;
const WIDE_LINE = 'line "one", ünï ✓\n';
const WIDE_REPEAT = 200_000;

const create = [
  `CREATE SCHEMA ${S}`,
  // A composite key, and a column name with a comma, so key columns keep their order and are never split on text.
  `CREATE TABLE ${S}.dc_customers (region text NOT NULL, id int4 NOT NULL, "display, name" text NOT NULL, email varchar(200), PRIMARY KEY (region, id))`,
  `CREATE TABLE ${S}.dc_orders (id int8 PRIMARY KEY, customer_region text NOT NULL, customer_id int4 NOT NULL, total numeric(12,2), placed_at timestamptz,
     CONSTRAINT dc_orders_customer_fk FOREIGN KEY (customer_region, customer_id) REFERENCES ${S}.dc_customers (region, id))`,
  `CREATE VIEW ${S}.dc_order_totals AS SELECT customer_id, sum(total) AS total FROM ${S}.dc_orders GROUP BY customer_id`,
  `CREATE MATERIALIZED VIEW ${S}.dc_order_summary AS SELECT count(*) AS orders FROM ${S}.dc_orders`,
  `CREATE TABLE ${S}.dc_values (id int4 PRIMARY KEY, i2 int2, i4 int4, i8 int8, dec numeric(38,10), num numeric, f4 float4, f8 float8, b bool,
     d date, ts timestamp, tstz timestamptz, bin bytea, j json, jb jsonb, ia int4[], ta text[], i8a int8[], nua numeric[], tsa timestamptz[], u uuid, iv interval)`,
  `INSERT INTO ${S}.dc_values VALUES
     (1, 32767, 2147483647, 9223372036854775807, 1234567890123456789012345678.1234567890, 12345678901234567890.123456789, 1.1, 1.7976931348623157e308, true,
      '2026-01-31', '2026-01-31 23:59:59.123456', '2026-01-31 23:59:59.123456+02', '\\x00ff10', '{"a": [1, 2], "b": "ü"}', '{"b": "ü", "a": [1, 2]}',
      '{1,2,NULL}', '{"a","b c",NULL,""}', '{9223372036854775807,-1}', '{12345678901234567890.5,NaN}', '{"2026-01-31 23:59:59.5+00","0044-03-15 00:00:00+00 BC"}',
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:03:04.5'),
     (2, -32768, -2147483648, -9223372036854775808, -0.0000000001, -1e-30, -0.5, 'NaN', false,
      '0044-03-15 BC', '2000-02-29 00:00:00', '1970-01-01 00:00:00+00', '\\x', '[]', 'null', '{}', '{}', '{}', '{}', '{}',
      '00000000-0000-0000-0000-000000000000', '-3 mons'),
     (3, 0, 0, 0, 0, 'NaN', 'Infinity', '-Infinity', NULL, 'infinity', '0044-03-15 12:00:00.5 BC', '-infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
     (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `CREATE TABLE ${S}.dc_texts (id int4 PRIMARY KEY, t text)`,
  `INSERT INTO ${S}.dc_texts VALUES (1, '👩‍💻 🎉 𝄞'), (2, 'e' || U&'\\0301' || ' n' || U&'\\0303'), (3, 'שלום עולם ' || U&'\\200F' || 'abc'),
     (4, 'a,b "c"' || E'\\n' || 'd' || E'\\r\\n'), (5, '\\.'), (6, E'tab\\there \\\\ back'), (7, ' ')`,
  `CREATE TABLE ${S}.dc_numbers AS SELECT g::int4 AS n, 'row ' || g AS label FROM generate_series(1, ${NUMBERS}) AS g`,
  `CREATE TABLE ${S}.dc_wide AS SELECT repeat(${literal(WIDE_LINE)}, ${WIDE_REPEAT}) AS w`,
  `CREATE SEQUENCE ${S}.dc_seq`,
];

/** A PostgreSQL E'' literal of `text`. */
function literal(text: string): string {
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''").replaceAll('\n', '\\n')}'`;
}

const values = (columns: string) => `SELECT ${columns} FROM ${S}.dc_values ORDER BY id`;

const valueCases: ValueCase[] = [
  {
    label: 'integers at their extremes, int8 as exact strings',
    sql: values('i2, i4, i8'),
    columns: [{ name: 'i2', type: 'int2' }, { name: 'i4', type: 'int4' }, { name: 'i8', type: 'int8' }],
    rows: [[32767, 2147483647, '9223372036854775807'], [-32768, -2147483648, '-9223372036854775808'], [0, 0, '0'], [null, null, null]],
  },
  {
    label: 'numeric exact, constrained (38 digits) and unconstrained (NaN kept)',
    sql: values('dec, num'),
    columns: [{ name: 'dec', type: 'numeric' }, { name: 'num', type: 'numeric' }],
    rows: [
      ['1234567890123456789012345678.1234567890', '12345678901234567890.123456789'],
      ['-0.0000000001', '-0.000000000000000000000000000001'],
      ['0.0000000000', 'NaN'],
      [null, null],
    ],
  },
  {
    label: 'floats, float4 as its shortest text, non-finite as strings',
    sql: values('f4, f8'),
    columns: [{ name: 'f4', type: 'float4' }, { name: 'f8', type: 'float8' }],
    rows: [[1.1, 1.7976931348623157e308], [-0.5, 'NaN'], ['Infinity', '-Infinity'], [null, null]],
  },
  {
    label: 'booleans',
    sql: values('b'),
    columns: [{ name: 'b', type: 'bool' }],
    rows: [[true], [false], [null], [null]],
  },
  {
    label: 'dates and timestamps with microseconds, UTC with Z, BC and infinity',
    sql: values('d, ts, tstz'),
    columns: [{ name: 'd', type: 'date' }, { name: 'ts', type: 'timestamp' }, { name: 'tstz', type: 'timestamptz' }],
    rows: [
      ['2026-01-31', '2026-01-31T23:59:59.123456', '2026-01-31T21:59:59.123456Z'],
      ['0044-03-15 BC', '2000-02-29T00:00:00.000000', '1970-01-01T00:00:00.000000Z'],
      ['infinity', '0044-03-15T12:00:00.500000 BC', '-infinity'],
      [null, null, null],
    ],
  },
  {
    label: 'text: emoji, combining marks, right-to-left, CSV quoting, a lone \\., a single space',
    sql: `SELECT t FROM ${S}.dc_texts ORDER BY id`,
    columns: [{ name: 't', type: 'text' }],
    rows: [['👩‍💻 🎉 𝄞'], ['e\u0301 n\u0303'], ['שלום עולם \u200Fabc'], ['a,b "c"\nd\r\n'], ['\\.'], ['tab\there \\ back'], [' ']],
  },
  {
    label: 'bytea as base64',
    sql: values('bin'),
    columns: [{ name: 'bin', type: 'bytea' }],
    rows: [['AP8Q'], [''], [null], [null]],
  },
  {
    label: 'json as its text, jsonb as PostgreSQL normalizes it',
    sql: values('j, jb'),
    columns: [{ name: 'j', type: 'json' }, { name: 'jb', type: 'jsonb' }],
    rows: [['{"a": [1, 2], "b": "ü"}', '{"a": [1, 2], "b": "ü"}'], ['[]', 'null'], [null, null], [null, null]],
  },
  {
    label: 'arrays as JSON arrays of encoded elements',
    sql: values('ia, ta, i8a, nua, tsa'),
    columns: [{ name: 'ia', type: '_int4' }, { name: 'ta', type: '_text' }, { name: 'i8a', type: '_int8' }, { name: 'nua', type: '_numeric' }, { name: 'tsa', type: '_timestamptz' }],
    rows: [
      [[1, 2, null], ['a', 'b c', null, ''], ['9223372036854775807', '-1'], ['12345678901234567890.5', 'NaN'], ['2026-01-31T23:59:59.500000Z', '0044-03-15T00:00:00.000000Z BC']],
      [[], [], [], [], []],
      [null, null, null, null, null],
      [null, null, null, null, null],
    ],
  },
  {
    label: 'other types as their PostgreSQL text',
    sql: values('u, iv'),
    columns: [{ name: 'u', type: 'uuid' }, { name: 'iv', type: 'interval' }],
    rows: [['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:03:04.5'], ['00000000-0000-0000-0000-000000000000', '-3 mons'], [null, null], [null, null]],
  },
  {
    label: 'duplicate column names, each kept',
    sql: `SELECT 1 AS a, 'x' AS a, NULL::int8 AS "A"`,
    columns: [{ name: 'a', type: 'int4' }, { name: 'a', type: 'text' }, { name: 'A', type: 'int8' }],
    rows: [[1, 'x', null]],
  },
];

export const pgContractFixture: DriverFixture = {
  create,
  drop: [`DROP SCHEMA IF EXISTS ${S} CASCADE`],
  // The newline keeps a statement that ends in a -- comment from swallowing the wrapper.
  bindOne: (sql) => ({ sql: `SELECT * FROM (${sql}\n) AS bound WHERE $1::int4 = 1`, params: [1] }),
  valueCases,
  nullAndEmpty: `SELECT v FROM (VALUES (1, ''), (2, NULL), (3, NULL), (4, '')) AS t(i, v) ORDER BY i`,
  wide: { sql: `SELECT w FROM ${S}.dc_wide`, value: WIDE_LINE.repeat(WIDE_REPEAT) },
  numbers: { sql: `SELECT n, label FROM ${S}.dc_numbers ORDER BY n`, rows: NUMBERS },
  statements: {
    refused: [
      `INSERT INTO ${S}.dc_texts VALUES (100, 'x')`,
      `UPDATE ${S}.dc_texts SET t = 'x'`,
      `DELETE FROM ${S}.dc_texts`,
      `MERGE INTO ${S}.dc_texts AS t USING ${S}.dc_texts AS s ON t.id = s.id WHEN MATCHED THEN DELETE`,
      `WITH gone AS (DELETE FROM ${S}.dc_texts RETURNING *) SELECT * FROM gone`,
      `SELECT * INTO ${S}.dc_copy FROM ${S}.dc_texts`,
      `CREATE TABLE ${S}.dc_new (a int)`,
      `DROP TABLE ${S}.dc_texts`,
      `ALTER TABLE ${S}.dc_texts ADD COLUMN extra int`,
      `TRUNCATE ${S}.dc_texts`,
      `COPY ${S}.dc_texts TO PROGRAM 'cat'`,
      `SELECT 1; SELECT 2`,
      `SELECT 1; DELETE FROM ${S}.dc_texts`,
      `BEGIN; SELECT 1; COMMIT`,
      `SET statement_timeout = 0`,
      `SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE`,
      `RESET ALL`,
      `SELECT set_config('default_transaction_read_only', 'off', false)`,
      `LOCK TABLE ${S}.dc_texts`,
      `SELECT * FROM ${S}.dc_texts FOR UPDATE`,
      `SELECT * FROM ${S}.dc_texts FOR SHARE`,
      `SELECT pg_advisory_lock(1)`,
      `SELECT nextval('${S}.dc_seq')`,
      `SELECT pg_read_file('/etc/passwd')`,
      `SELECT lo_import('/etc/passwd')`,
      `SELECT pg_terminate_backend(pg_backend_pid())`,
      `EXPLAIN ANALYZE SELECT 1`,
      `EXPLAIN DELETE FROM ${S}.dc_texts`,
      `DO $$ BEGIN PERFORM 1; END $$`,
      `VACUUM ${S}.dc_texts`,
      `GRANT SELECT ON ${S}.dc_texts TO PUBLIC`,
      `REFRESH MATERIALIZED VIEW ${S}.dc_order_summary`,
      `NOTIFY dc_channel`,
      `PREPARE dc_plan AS SELECT 1`,
    ],
    accepted: [
      { sql: `SELECT * FROM ${S}.dc_customers`, kind: 'select', paramCount: 0 },
      { sql: `WITH x AS (SELECT 1 AS a) SELECT a FROM x`, kind: 'select', paramCount: 0 },
      { sql: `VALUES (1), (2)`, kind: 'select', paramCount: 0 },
      { sql: `TABLE ${S}.dc_customers`, kind: 'select', paramCount: 0 },
      { sql: `EXPLAIN SELECT * FROM ${S}.dc_orders`, kind: 'explain', paramCount: 0 },
      { sql: `SELECT $2::int4, $1::text`, kind: 'select', paramCount: 2 },
      { sql: `SELECT $1::text WHERE $3::int4 > $2::int4`, kind: 'select', paramCount: 3 },
      { sql: `  SELECT 1 ;  `, kind: 'select', paramCount: 0, text: 'SELECT 1', offset: 2 },
      { sql: `SELECT 1 AS one; -- done`, kind: 'select', paramCount: 0, text: 'SELECT 1 AS one', offset: 0 },
      // Offsets count code points: é is two UTF-8 bytes, 😀 four bytes and two UTF-16 units, each one character.
      { sql: `/* é😀 */; SELECT 1`, kind: 'select', paramCount: 0, text: 'SELECT 1', offset: 10 },
    ],
    syntaxError: { sql: `SELECT * FRM ${S}.dc_customers`, code: 'SQL_ERROR', position: 10 },
    unknownColumn: { sql: `SELECT id, no_such_column FROM ${S}.dc_customers`, position: 12 },
    failsInStream: `SELECT g, 1 / (g - 5000) AS x FROM generate_series(1, 10000) AS g`,
    // nextval is a write PostgreSQL refuses in a READ ONLY transaction.
    engineWrite: { sql: `SELECT nextval('${S}.dc_seq')`, probe: `SELECT last_value::text AS last_value, is_called FROM ${S}.dc_seq` },
  },
  cancel: {
    sleep: (marker) => `SELECT pg_sleep(30) AS slept, '${marker}' AS marker`,
    running: (marker) =>
      `SELECT pid FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND position('${marker}' in query) > 0`,
  },
  introspection: {
    schema: S,
    table: {
      schema: S,
      name: 'dc_customers',
      kind: 'table',
      columns: [
        { name: 'region', type: 'text', nullable: false },
        { name: 'id', type: 'integer', nullable: false },
        { name: 'display, name', type: 'text', nullable: false },
        { name: 'email', type: 'character varying(200)', nullable: true },
      ],
      primaryKey: ['region', 'id'],
      foreignKeys: [],
    },
    child: {
      name: 'dc_orders',
      foreignKeys: [{ name: 'dc_orders_customer_fk', columns: ['customer_region', 'customer_id'], references: { schema: S, table: 'dc_customers', columns: ['region', 'id'] } }],
    },
    relations: [
      { name: 'dc_customers', kind: 'table' },
      { name: 'dc_orders', kind: 'table' },
      { name: 'dc_order_totals', kind: 'view' },
      { name: 'dc_order_summary', kind: 'materialized_view' },
      { name: 'dc_values', kind: 'table' },
      { name: 'dc_texts', kind: 'table' },
      { name: 'dc_numbers', kind: 'table' },
      { name: 'dc_wide', kind: 'table' },
    ],
    search: { text: 'dc_order', names: ['dc_orders', 'dc_order_totals', 'dc_order_summary'] },
  },
};
