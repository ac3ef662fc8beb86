/**
 * SQLite's fixture for the driver contract suite: tables in a file the test
 * builds (sqlite-contract.test.ts), the statements each case runs, and what
 * the contract's value encoding makes of SQLite's declared types and
 * storage classes (sqlite-column-types.ts says the rule).
 */
import type { DriverFixture, ValueCase } from '../driver-fixture.ts';

const NUMBERS = 30_000;
const WIDE_LINE = 'line "one", ünï ✓\n';
const WIDE_REPEAT = 200_000;
const TABLES = ['dc_orders', 'dc_customers', 'dc_values', 'dc_texts', 'dc_numbers', 'dc_wide'];

/** A SQLite string literal of `text`, line breaks spelled with char(). */
function literal(text: string): string {
  return text
    .split('\n')
    .map((part) => `'${part.replaceAll("'", "''")}'`)
    .join(' || char(10) || ');
}

const create = [
  // A composite key, and a column name with a comma, so key columns keep their order and are never split on text.
  `CREATE TABLE dc_customers (region TEXT NOT NULL, id INTEGER NOT NULL, "display, name" TEXT NOT NULL, email VARCHAR(200), PRIMARY KEY (region, id))`,
  `CREATE TABLE dc_orders (id INTEGER PRIMARY KEY, customer_region TEXT NOT NULL, customer_id INTEGER NOT NULL, total DECIMAL(12,2), placed_at DATETIME,
     CONSTRAINT dc_orders_customer_fk FOREIGN KEY (customer_region, customer_id) REFERENCES dc_customers (region, id))`,
  `CREATE VIEW dc_order_totals AS SELECT customer_id, sum(total) AS total FROM dc_orders GROUP BY customer_id`,
  `CREATE TABLE dc_values (id INTEGER PRIMARY KEY, i INTEGER, big BIGINT, r REAL, f FLOAT, n NUMERIC, dec DECIMAL(10,2), b BOOLEAN,
     d DATE, ts DATETIME, t TEXT, vc VARCHAR(20), bin BLOB, untyped)`,
  `INSERT INTO dc_values VALUES
     (1, 2147483647, 9223372036854775807, 1.1, 1.7976931348623157e308, 42, 12.5, 1, '2026-01-31', '2026-01-31 23:59:59.123', 'x', 'ü', x'00ff10', 9007199254740993),
     (2, -2147483648, -9223372036854775808, -0.5, 1e999, 0.25, 0, 0, '0044-03-15', '2000-02-29T00:00:00', '', 'a,b', x'', -1),
     (3, 0, 0, 0.0, -1e999, -7, -0.01, NULL, NULL, NULL, ' ', NULL, NULL, NULL),
     (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `CREATE TABLE dc_texts (id INTEGER PRIMARY KEY, t TEXT)`,
  `INSERT INTO dc_texts VALUES (1, '👩‍💻 🎉 𝄞'), (2, 'e' || char(769) || ' n' || char(771)), (3, 'שלום עולם ' || char(8207) || 'abc'),
     (4, 'a,b "c"' || char(10) || 'd' || char(13, 10)), (5, '\\.'), (6, 'tab' || char(9) || 'here \\ back'), (7, ' ')`,
  `CREATE TABLE dc_numbers AS WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${NUMBERS}) SELECT n, 'row ' || n AS label FROM g`,
  `CREATE TABLE dc_wide AS SELECT replace(hex(zeroblob(${WIDE_REPEAT})), '00', ${literal(WIDE_LINE)}) AS w`,
];

const values = (columns: string) => `SELECT ${columns} FROM dc_values ORDER BY id`;

const valueCases: ValueCase[] = [
  {
    label: 'INTEGER affinity as 64-bit integers, exact strings',
    sql: values('i, big'),
    columns: [{ name: 'i', type: 'integer' }, { name: 'big', type: 'bigint' }],
    rows: [['2147483647', '9223372036854775807'], ['-2147483648', '-9223372036854775808'], ['0', '0'], [null, null]],
  },
  {
    label: 'REAL affinity as doubles, infinities as strings',
    sql: values('r, f'),
    columns: [{ name: 'r', type: 'real' }, { name: 'f', type: 'float' }],
    rows: [[1.1, 1.7976931348623157e308], [-0.5, 'Infinity'], [0, '-Infinity'], [null, null]],
  },
  {
    label: 'NUMERIC affinity as exact decimal text, whatever class each value has',
    sql: values('n, dec'),
    columns: [{ name: 'n', type: 'numeric' }, { name: 'dec', type: 'decimal(10,2)' }],
    rows: [['42', '12.5'], ['0.25', '0'], ['-7', '-0.01'], [null, null]],
  },
  {
    label: 'BOOLEAN as booleans',
    sql: values('b'),
    columns: [{ name: 'b', type: 'boolean' }],
    rows: [[true], [false], [null], [null]],
  },
  {
    label: 'dates and times as the ISO text SQLite keeps',
    sql: values('d, ts'),
    columns: [{ name: 'd', type: 'date' }, { name: 'ts', type: 'datetime' }],
    rows: [['2026-01-31', '2026-01-31 23:59:59.123'], ['0044-03-15', '2000-02-29T00:00:00'], [null, null], [null, null]],
  },
  {
    label: 'TEXT affinity as text',
    sql: values('t, vc'),
    columns: [{ name: 't', type: 'text' }, { name: 'vc', type: 'varchar(20)' }],
    rows: [['x', 'ü'], ['', 'a,b'], [' ', null], [null, null]],
  },
  {
    label: 'text: emoji, combining marks, right-to-left, CSV quoting, a lone \\., a single space',
    sql: `SELECT t FROM dc_texts ORDER BY id`,
    columns: [{ name: 't', type: 'text' }],
    rows: [['👩‍💻 🎉 𝄞'], ['e\u0301 n\u0303'], ['שלום עולם \u200Fabc'], ['a,b "c"\nd\r\n'], ['\\.'], ['tab\there \\ back'], [' ']],
  },
  {
    label: 'BLOB as base64',
    sql: values('bin'),
    columns: [{ name: 'bin', type: 'blob' }],
    rows: [['AP8Q'], [''], [null], [null]],
  },
  {
    label: 'a column with no declared type, typed by its first value (an integer past 2^53 exact)',
    sql: values('untyped'),
    columns: [{ name: 'untyped', type: 'integer' }],
    rows: [['9007199254740993'], ['-1'], [null], [null]],
  },
  {
    label: 'expressions typed by the storage class of their first value, or by the CAST that types them',
    sql: `SELECT 1 + 1 AS i, 0.5 * 3 AS r, 'a' || 'b' AS t, x'ff' AS bl, NULL AS missing, CAST(1 AS BOOLEAN) AS flag, count(*) AS n FROM dc_texts`,
    columns: [{ name: 'i', type: 'integer' }, { name: 'r', type: 'real' }, { name: 't', type: 'text' }, { name: 'bl', type: 'blob' }, { name: 'missing', type: 'null' }, { name: 'flag', type: 'boolean' }, { name: 'n', type: 'integer' }],
    rows: [['2', 1.5, 'ab', '/w==', null, true, '7']],
  },
  // Duplicate names are shown as sent in sqlite-export.test.ts: the bound path's wrapper is a subquery,
  // whose columns SQLite renames apart.
];

export const sqliteContractFixture: DriverFixture = {
  create,
  drop: [...TABLES.map((t) => `DROP TABLE IF EXISTS ${t}`), 'DROP VIEW IF EXISTS dc_order_totals'],
  // The newline keeps a statement that ends in a -- comment from swallowing the wrapper.
  bindOne: (sql) => ({ sql: `SELECT * FROM (${sql}\n) WHERE ?1 = 1`, params: [1] }),
  valueCases,
  nullAndEmpty: `SELECT v FROM (SELECT 1 AS i, '' AS v UNION ALL SELECT 2, NULL UNION ALL SELECT 3, NULL UNION ALL SELECT 4, '') ORDER BY i`,
  wide: { sql: `SELECT w FROM dc_wide`, value: WIDE_LINE.repeat(WIDE_REPEAT) },
  numbers: { sql: `SELECT n, label FROM dc_numbers ORDER BY n`, rows: NUMBERS },
  statements: {
    refused: [
      `INSERT INTO dc_texts VALUES (100, 'x')`,
      `INSERT INTO dc_texts VALUES (100, 'x') RETURNING id`,
      `REPLACE INTO dc_texts VALUES (1, 'x')`,
      `UPDATE dc_texts SET t = 'x'`,
      `DELETE FROM dc_texts`,
      `WITH x AS (SELECT 1) INSERT INTO dc_texts SELECT 100, 'x' FROM x`,
      `CREATE TABLE dc_new (a INTEGER)`,
      `CREATE TEMP TABLE dc_new (a INTEGER)`,
      `CREATE VIEW dc_v AS SELECT 1`,
      `CREATE INDEX dc_i ON dc_texts (t)`,
      `CREATE TRIGGER dc_t AFTER INSERT ON dc_texts BEGIN DELETE FROM dc_texts; END`,
      `DROP TABLE dc_texts`,
      `ALTER TABLE dc_texts ADD COLUMN extra INTEGER`,
      `ATTACH DATABASE '/tmp/sluice-attached.db' AS other`,
      `DETACH DATABASE other`,
      `VACUUM`,
      `VACUUM INTO '/tmp/sluice-copy.db'`,
      `REINDEX`,
      `ANALYZE`,
      `BEGIN`,
      `BEGIN IMMEDIATE`,
      `COMMIT`,
      `ROLLBACK`,
      `SAVEPOINT s`,
      `RELEASE s`,
      `SELECT 1; SELECT 2`,
      `SELECT 1; DELETE FROM dc_texts`,
      `PRAGMA query_only = OFF`,
      `PRAGMA writable_schema = ON`,
      `PRAGMA journal_mode = WAL`,
      `PRAGMA locking_mode = EXCLUSIVE`,
      `PRAGMA database_list`,
      `PRAGMA no_such_pragma`,
      `SELECT * FROM pragma_database_list`,
      `SELECT file FROM main.pragma_database_list()`,
      `SELECT 1 WHERE 'main' IN pragma_database_list`,
      `SELECT load_extension('/tmp/evil.so')`,
      `SELECT "load_extension"('/tmp/evil.so')`,
      `SELECT readfile('/etc/passwd')`,
      `SELECT writefile('/tmp/sluice-written', 'x')`,
      `SELECT edit('x')`,
      `SELECT fts3_tokenizer('simple')`,
      `SELECT * FROM sqlite_dbpage`,
      `SELECT data FROM main.sqlite_dbpage('main')`,
      `SELECT * FROM fsdir('/')`,
      `SELECT * FROM zipfile('/tmp/x.zip')`,
      `EXPLAIN DELETE FROM dc_texts`,
      `EXPLAIN QUERY PLAN INSERT INTO dc_texts VALUES (100, 'x')`,
    ],
    accepted: [
      { sql: `SELECT * FROM dc_customers`, kind: 'select', paramCount: 0 },
      { sql: `WITH x AS (SELECT 1 AS a) SELECT a FROM x`, kind: 'select', paramCount: 0 },
      { sql: `VALUES (1), (2)`, kind: 'select', paramCount: 0 },
      { sql: `SELECT 1 UNION ALL SELECT 2 ORDER BY 1`, kind: 'select', paramCount: 0 },
      { sql: `EXPLAIN QUERY PLAN SELECT * FROM dc_orders`, kind: 'explain', paramCount: 0 },
      { sql: `EXPLAIN SELECT 1`, kind: 'explain', paramCount: 0 },
      { sql: `PRAGMA table_info(dc_customers)`, kind: 'select', paramCount: 0 },
      { sql: `SELECT name FROM pragma_table_info('dc_customers')`, kind: 'select', paramCount: 0 },
      { sql: `SELECT ?2, ?1`, kind: 'select', paramCount: 2 },
      { sql: `SELECT ?1 WHERE ?3 > ?2`, kind: 'select', paramCount: 3 },
      { sql: `SELECT ?, ?5, ?`, kind: 'select', paramCount: 6 },
      { sql: `  SELECT 1 ;  `, kind: 'select', paramCount: 0, text: 'SELECT 1', offset: 2 },
      { sql: `SELECT 1 AS one; -- done`, kind: 'select', paramCount: 0, text: 'SELECT 1 AS one', offset: 0 },
      // Offsets count code points: é is two UTF-8 bytes, 😀 four bytes and two UTF-16 units, each one character.
      { sql: `/* é😀 */; SELECT 1`, kind: 'select', paramCount: 0, text: 'SELECT 1', offset: 10 },
    ],
    syntaxError: { sql: `SELECT * FRM dc_customers`, code: 'SQL_ERROR', position: 10 },
    // SQLite's libraries give no position for a name they cannot resolve.
    unknownColumn: { sql: `SELECT id, no_such_column FROM dc_customers` },
    // SQLite divides by zero to NULL; malformed JSON is an error it raises on the row that holds it.
    failsInStream: `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 10000) SELECT n, json(CASE WHEN n = 5000 THEN 'not json' ELSE '1' END) AS x FROM g`,
    engineWrite: { sql: `INSERT INTO dc_texts VALUES (100, 'x') RETURNING id`, probe: `SELECT count(*) AS n, max(id) AS top FROM dc_texts` },
  },
  cancel: {
    // Counts to 3·10^8 (tens of seconds) in one step, reading a table so it holds the file's read lock throughout.
    sleep: (marker) =>
      `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300000000) SELECT count(*) AS slept, '${marker}' AS marker FROM c CROSS JOIN (SELECT id FROM dc_texts WHERE id = 1)`,
    // SQLite lists no running statements: a statement that runs holds a read lock on the file, which the probe sees.
    running: () => `SELECT 1 AS running WHERE dc_reader_active()`,
  },
  introspection: {
    schema: 'main',
    table: {
      schema: 'main',
      name: 'dc_customers',
      kind: 'table',
      columns: [
        { name: 'region', type: 'text', nullable: false },
        { name: 'id', type: 'integer', nullable: false },
        { name: 'display, name', type: 'text', nullable: false },
        { name: 'email', type: 'varchar(200)', nullable: true },
      ],
      primaryKey: ['region', 'id'],
      foreignKeys: [],
    },
    child: {
      name: 'dc_orders',
      foreignKeys: [{ name: 'dc_orders_customer_fk', columns: ['customer_region', 'customer_id'], references: { schema: 'main', table: 'dc_customers', columns: ['region', 'id'] } }],
    },
    relations: [
      { name: 'dc_customers', kind: 'table' },
      { name: 'dc_orders', kind: 'table' },
      { name: 'dc_order_totals', kind: 'view' },
      { name: 'dc_values', kind: 'table' },
      { name: 'dc_texts', kind: 'table' },
      { name: 'dc_numbers', kind: 'table' },
      { name: 'dc_wide', kind: 'table' },
    ],
    search: { text: 'dc_order', names: ['dc_orders', 'dc_order_totals'] },
  },
};
