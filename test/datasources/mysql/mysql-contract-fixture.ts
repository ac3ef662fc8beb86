/**
 * MariaDB's (and MySQL's) fixture for the driver contract suite: tables in a
 * database of their own (other test files use others), the statements each
 * case runs, and what the contract's value encoding makes of the engine's
 * types. Rows that must come back in order are read from tables whose
 * primary key orders them, since a derived table may drop its ORDER BY.
 */
import type { DriverFixture, ValueCase } from '../driver-fixture.ts';

export const CONTRACT_DATABASE = 'sluice_contract';
const S = CONTRACT_DATABASE;
const NUMBERS = 30_000;
const WIDE_LINE = 'line "one", ünï ✓\n';
const WIDE_REPEAT = 200_000;

/** A MySQL string literal of `text` (the fixture's session keeps backslash escapes). */
function literal(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n').replaceAll('\r', '\\r').replaceAll('\t', '\\t')}'`;
}

const DIGITS = `(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)`;
const TEXTS = ['👩‍💻 🎉 𝄞', 'e\u0301 n\u0303', 'שלום עולם \u200Fabc', 'a,b "c"\nd\r\n', '\\.', 'tab\there \\ back', ' '];

const create = [
  `CREATE DATABASE ${S} CHARACTER SET utf8mb4`,
  // TIMESTAMP values below are written at +02:00 and must come back in UTC.
  `SET time_zone = '+02:00'`,
  // A composite key, and a column name with a comma, so key columns keep their order and are never split on text.
  `CREATE TABLE ${S}.dc_customers (region VARCHAR(20) NOT NULL, id INT NOT NULL, \`display, name\` VARCHAR(100) NOT NULL, email VARCHAR(200), PRIMARY KEY (region, id))`,
  `CREATE TABLE ${S}.dc_orders (id BIGINT PRIMARY KEY, customer_region VARCHAR(20) NOT NULL, customer_id INT NOT NULL, total DECIMAL(12,2), placed_at TIMESTAMP(6) NULL,
     CONSTRAINT dc_orders_customer_fk FOREIGN KEY (customer_region, customer_id) REFERENCES ${S}.dc_customers (region, id))`,
  `CREATE VIEW ${S}.dc_order_totals AS SELECT customer_id, SUM(total) AS total FROM ${S}.dc_orders GROUP BY customer_id`,
  `CREATE TABLE ${S}.dc_values (id INT PRIMARY KEY, ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT, ui INT UNSIGNED, bu BIGINT UNSIGNED,
     d38 DECIMAL(38,10), d65 DECIMAL(65,30), f FLOAT, db DOUBLE, b1 BIT(1), b10 BIT(10), b64 BIT(64), y YEAR, flag TINYINT(1),
     d DATE, dt DATETIME(6), ts TIMESTAMP(6) NULL, tm TIME(6), bl BLOB, bn BINARY(3), vb VARBINARY(10), j JSON, e ENUM('a','b'), st SET('x','y'))`,
  `INSERT INTO ${S}.dc_values VALUES
     (1, 127, 32767, 8388607, 2147483647, 9223372036854775807, 4294967295, 18446744073709551615,
      1234567890123456789012345678.1234567890, 12345678901234567890123456789012345.123456789012345678901234567890, 1.1, 1.7976931348623157e308,
      b'1', b'1010101010', b'1111111111111111111111111111111111111111111111111111111111111111', 2026, 1,
      '2026-01-31', '2026-01-31 23:59:59.123456', '2026-01-31 23:59:59.123456', '838:59:59.000000', x'00ff10', x'0102', x'', '{"a": [1, 2], "b": "ü"}', 'b', 'x,y'),
     (2, -128, -32768, -8388608, -2147483648, -9223372036854775808, 0, 0, -0.0000000001, -0.000000000000000000000000000001, -0.5, -2.5e-300,
      b'0', b'0', b'0', 1901, 0, '1000-01-01', '9999-12-31 23:59:59.999999', '1970-01-01 02:00:01', '-838:59:59.000000', x'', x'', x'00', '[]', 'a', ''),
     (3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, 2155, 5, '2000-02-29', '2000-02-29 00:00:00', '2038-01-19 05:14:07.999999', '25:30:00.5', NULL, NULL, NULL, NULL, NULL, NULL),
     (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `CREATE TABLE ${S}.dc_texts (id INT PRIMARY KEY, t TEXT) CHARACTER SET utf8mb4`,
  `INSERT INTO ${S}.dc_texts VALUES ${TEXTS.map((t, i) => `(${i + 1}, ${literal(t)})`).join(', ')}`,
  `CREATE TABLE ${S}.dc_nulls (i INT PRIMARY KEY, v VARCHAR(10))`,
  `INSERT INTO ${S}.dc_nulls VALUES (1, ''), (2, NULL), (3, NULL), (4, '')`,
  `CREATE TABLE ${S}.dc_numbers (n INT PRIMARY KEY, label VARCHAR(20) NOT NULL)`,
  `INSERT INTO ${S}.dc_numbers SELECT g.n, CONCAT('row ', g.n) FROM (SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 1 AS n
     FROM ${DIGITS} a, ${DIGITS} b, ${DIGITS} c, ${DIGITS} e, ${DIGITS} f) AS g WHERE g.n <= ${NUMBERS}`,
  `CREATE TABLE ${S}.dc_wide (w LONGTEXT)`,
  `INSERT INTO ${S}.dc_wide VALUES (REPEAT(${literal(WIDE_LINE)}, ${WIDE_REPEAT}))`,
  `CREATE SEQUENCE ${S}.dc_seq`,
  `SET time_zone = '+00:00'`,
];

const values = (columns: string) => `SELECT ${columns} FROM ${S}.dc_values ORDER BY id`;

const valueCases: ValueCase[] = [
  {
    label: 'integers at their extremes, BIGINT and INT UNSIGNED as exact strings',
    sql: values('ti, si, mi, i, bi, ui, bu'),
    columns: [
      { name: 'ti', type: 'tinyint' }, { name: 'si', type: 'smallint' }, { name: 'mi', type: 'mediumint' }, { name: 'i', type: 'int' },
      { name: 'bi', type: 'bigint' }, { name: 'ui', type: 'int unsigned' }, { name: 'bu', type: 'bigint unsigned' },
    ],
    rows: [
      [127, 32767, 8388607, 2147483647, '9223372036854775807', '4294967295', '18446744073709551615'],
      [-128, -32768, -8388608, -2147483648, '-9223372036854775808', '0', '0'],
      [0, 0, 0, 0, '0', '0', '0'],
      [null, null, null, null, null, null, null],
    ],
  },
  {
    label: 'decimals exact: DECIMAL(38,10) as DuckDB DECIMAL, DECIMAL(65,30) as its text',
    sql: values('d38, d65'),
    columns: [{ name: 'd38', type: 'decimal' }, { name: 'd65', type: 'decimal' }],
    rows: [
      ['1234567890123456789012345678.1234567890', '12345678901234567890123456789012345.123456789012345678901234567890'],
      ['-0.0000000001', '-0.000000000000000000000000000001'],
      ['0.0000000000', '0.000000000000000000000000000000'],
      [null, null],
    ],
  },
  {
    label: 'FLOAT as its shortest text, DOUBLE at its extremes',
    sql: values('f, db'),
    columns: [{ name: 'f', type: 'float' }, { name: 'db', type: 'double' }],
    rows: [[1.1, 1.7976931348623157e308], [-0.5, -2.5e-300], [0, 0], [null, null]],
  },
  {
    label: 'BIT(1) as a boolean, wider BITs as their unsigned value, YEAR and TINYINT(1) as numbers',
    sql: values('b1, b10, b64, y, flag'),
    columns: [{ name: 'b1', type: 'bit' }, { name: 'b10', type: 'bit' }, { name: 'b64', type: 'bit' }, { name: 'y', type: 'year' }, { name: 'flag', type: 'tinyint' }],
    rows: [[true, '682', '18446744073709551615', 2026, 1], [false, '0', '0', 1901, 0], [null, null, null, 2155, 5], [null, null, null, null, null]],
  },
  {
    label: 'DATE, DATETIME(6) and TIMESTAMP(6) (UTC with Z) at their extremes',
    sql: values('d, dt, ts'),
    columns: [{ name: 'd', type: 'date' }, { name: 'dt', type: 'datetime' }, { name: 'ts', type: 'timestamp' }],
    rows: [
      ['2026-01-31', '2026-01-31T23:59:59.123456', '2026-01-31T21:59:59.123456Z'],
      ['1000-01-01', '9999-12-31T23:59:59.999999', '1970-01-01T00:00:01.000000Z'],
      ['2000-02-29', '2000-02-29T00:00:00.000000', '2038-01-19T03:14:07.999999Z'],
      [null, null, null],
    ],
  },
  {
    label: 'TIME(6) past 24 hours and negative, as its text',
    sql: values('tm'),
    columns: [{ name: 'tm', type: 'time' }],
    rows: [['838:59:59.000000'], ['-838:59:59.000000'], ['25:30:00.500000'], [null]],
  },
  {
    label: 'utf8mb4 text: emoji, combining marks, right-to-left, CSV quoting, a lone \\., a single space',
    sql: `SELECT t FROM ${S}.dc_texts ORDER BY id`,
    columns: [{ name: 't', type: 'text' }],
    rows: TEXTS.map((t) => [t]),
  },
  {
    label: 'BLOB, BINARY and VARBINARY as base64',
    sql: values('bl, bn, vb'),
    columns: [{ name: 'bl', type: 'blob' }, { name: 'bn', type: 'binary' }, { name: 'vb', type: 'varbinary' }],
    rows: [['AP8Q', 'AQIA', ''], ['', 'AAAA', 'AA=='], [null, null, null], [null, null, null]],
  },
  {
    label: "JSON as its text (MariaDB's JSON is LONGTEXT), ENUM and SET as text",
    sql: values('j, e, st'),
    columns: [{ name: 'j', type: 'longtext' }, { name: 'e', type: 'enum' }, { name: 'st', type: 'set' }],
    rows: [['{"a": [1, 2], "b": "ü"}', 'b', 'x,y'], ['[]', 'a', ''], [null, null, null], [null, null, null]],
  },
  {
    label: 'duplicate column names, each kept',
    sql: `SELECT 1 AS a, 'x' AS a, CAST(NULL AS DATE) AS A`,
    columns: [{ name: 'a', type: 'int' }, { name: 'a', type: 'varchar' }, { name: 'A', type: 'date' }],
    rows: [[1, 'x', null]],
  },
];

export const mysqlContractFixture: DriverFixture = {
  create,
  drop: [`DROP DATABASE IF EXISTS ${S}`],
  // A CTE that takes the parameter ahead of the statement: the statement stays the top level, so its ORDER BY and duplicate names hold.
  bindOne: (sql) => ({ sql: `WITH sluice_bound AS (SELECT :1 AS v) ${sql}`, params: [1] }),
  valueCases,
  nullAndEmpty: `SELECT v FROM ${S}.dc_nulls ORDER BY i`,
  wide: { sql: `SELECT w FROM ${S}.dc_wide`, value: WIDE_LINE.repeat(WIDE_REPEAT) },
  numbers: { sql: `SELECT n, label FROM ${S}.dc_numbers ORDER BY n`, rows: NUMBERS },
  statements: {
    refused: [
      `INSERT INTO ${S}.dc_texts VALUES (100, 'x')`,
      `REPLACE INTO ${S}.dc_texts VALUES (1, 'x')`,
      `UPDATE ${S}.dc_texts SET t = 'x'`,
      `DELETE FROM ${S}.dc_texts`,
      `SELECT * FROM ${S}.dc_texts INTO OUTFILE '/tmp/sluice_contract_out'`,
      `SELECT t FROM ${S}.dc_texts LIMIT 1 INTO DUMPFILE '/tmp/sluice_contract_dump'`,
      `SELECT t INTO @x FROM ${S}.dc_texts LIMIT 1`,
      `CREATE TABLE ${S}.dc_new (a INT)`,
      `DROP TABLE ${S}.dc_texts`,
      `ALTER TABLE ${S}.dc_texts ADD COLUMN extra INT`,
      `TRUNCATE ${S}.dc_texts`,
      `SELECT 1; SELECT 2`,
      `SELECT 1; DELETE FROM ${S}.dc_texts`,
      `BEGIN; SELECT 1; COMMIT`,
      `SET SESSION TRANSACTION READ WRITE`,
      `SET max_statement_time = 0`,
      `SELECT @a := 1`,
      `LOCK TABLES ${S}.dc_texts WRITE`,
      `SELECT * FROM ${S}.dc_texts FOR UPDATE`,
      `SELECT * FROM ${S}.dc_texts LOCK IN SHARE MODE`,
      `SELECT GET_LOCK('dc_lock', 0)`,
      `SELECT NEXTVAL(${S}.dc_seq)`,
      `SELECT NEXT VALUE FOR ${S}.dc_seq`,
      `SELECT LOAD_FILE('/etc/passwd')`,
      `SELECT 1 /*! , LOAD_FILE('/etc/passwd') */`,
      `SELECT 1 /*M!100000 , 2 */`,
      `HANDLER ${S}.dc_texts OPEN`,
      `XA START 'dc'`,
      `CALL ${S}.dc_proc()`,
      `DO GET_LOCK('dc_lock', 0)`,
      `ANALYZE TABLE ${S}.dc_texts`,
      `FLUSH TABLES`,
      `KILL 1`,
      `LOAD DATA INFILE '/etc/passwd' INTO TABLE ${S}.dc_texts`,
      `PREPARE dc_plan FROM 'SELECT 1'`,
      `USE mysql`,
      `GRANT SELECT ON ${S}.* TO 'nobody'@'%'`,
      `EXPLAIN DELETE FROM ${S}.dc_texts`,
    ],
    accepted: [
      { sql: `SELECT * FROM ${S}.dc_customers`, kind: 'select', paramCount: 0 },
      { sql: `WITH x AS (SELECT 1 AS a) SELECT a FROM x`, kind: 'select', paramCount: 0 },
      { sql: `EXPLAIN SELECT * FROM ${S}.dc_orders`, kind: 'explain', paramCount: 0 },
      { sql: `SELECT ? AS a, ? AS b`, kind: 'select', paramCount: 2 },
      { sql: `SELECT :2 AS a, :1 AS b WHERE :3 IS NULL`, kind: 'select', paramCount: 3 },
      { sql: `SELECT CAST(n AS SIGNED) AS n, GROUP_CONCAT(label SEPARATOR '|') AS labels FROM dc_numbers WHERE n < 3 GROUP BY n`, kind: 'select', paramCount: 0 },
      { sql: `SELECT 'it''s ? -- /*! not run */ INTO' AS s`, kind: 'select', paramCount: 0 },
      { sql: `  SELECT 1 ;  `, kind: 'select', paramCount: 0, text: 'SELECT 1', offset: 2 },
      { sql: `SELECT 1 AS one; -- done`, kind: 'select', paramCount: 0, text: 'SELECT 1 AS one', offset: 0 },
      // Offsets count code points: é is two UTF-8 bytes, 😀 four bytes and two UTF-16 units, each one character.
      { sql: `/* é😀 */; SELECT 1`, kind: 'select', paramCount: 0, text: 'SELECT 1', offset: 10 },
    ],
    syntaxError: { sql: `SELECT * FRM ${S}.dc_customers`, code: 'SQL_ERROR', position: 10 },
    unknownColumn: { sql: `SELECT id, no_such_column FROM ${S}.dc_customers` },
    // EXP(1000) overflows a DOUBLE: an error at row 5000, after thousands of rows were sent.
    failsInStream: `SELECT n, EXP(IF(n = 5000, 1000, 0)) AS x FROM ${S}.dc_numbers ORDER BY n`,
    // NEXTVAL is a write the server refuses in a READ ONLY transaction.
    engineWrite: { sql: `SELECT NEXTVAL(${S}.dc_seq)`, probe: `SELECT next_not_cached_value FROM ${S}.dc_seq` },
  },
  cancel: {
    sleep: (marker) => `SELECT SLEEP(30) AS slept, '${marker}' AS marker`,
    running: (marker) =>
      `SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO LIKE '%${marker}%'`,
  },
  introspection: {
    schema: S,
    table: {
      schema: S,
      name: 'dc_customers',
      kind: 'table',
      columns: [
        { name: 'region', type: 'varchar(20)', nullable: false },
        { name: 'id', type: 'int(11)', nullable: false },
        { name: 'display, name', type: 'varchar(100)', nullable: false },
        { name: 'email', type: 'varchar(200)', nullable: true },
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
      { name: 'dc_values', kind: 'table' },
      { name: 'dc_texts', kind: 'table' },
      { name: 'dc_nulls', kind: 'table' },
      { name: 'dc_numbers', kind: 'table' },
      { name: 'dc_wide', kind: 'table' },
      { name: 'dc_seq', kind: 'table' },
    ],
    search: { text: 'dc_order', names: ['dc_orders', 'dc_order_totals'] },
  },
};
