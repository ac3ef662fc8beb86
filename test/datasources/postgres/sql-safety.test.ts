import { describe, it, expect } from 'vitest';
import { SluiceError, type ErrorCode } from '../../../src/errors.ts';
import { checkReadOnly, classifySql } from '../../../src/datasources/postgres/sql-safety.ts';
import { DENIED_FUNCTIONS, deniedFunctionReason } from '../../../src/datasources/postgres/sql-functions.ts';

async function failure(sql: string): Promise<SluiceError> {
  try {
    await checkReadOnly(sql);
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    return error as SluiceError;
  }
  throw new Error(`expected ${JSON.stringify(sql)} to be refused`);
}

const R: ErrorCode = 'READ_ONLY_VIOLATION';

const refused: Array<[string, string]> = [
  // more than one statement
  ['select 1; select 2', 'Only one statement per query is allowed; found 2.'],
  ['COMMIT; DELETE FROM t', 'found 2'],
  ['SELECT 1 /* ; */; DELETE FROM t', 'found 2'],
  ["SELECT ';'; DELETE FROM t", 'found 2'],
  ['select 1; -- fine\n drop table t', 'found 2'],
  ['begin; select 1; commit', 'found 3'],
  // not a SELECT at the top
  ['/* */ dElEtE from t', 'found DELETE'],
  ['INSERT INTO t VALUES (1)', 'found INSERT'],
  ['UPDATE t SET a = 1', 'found UPDATE'],
  ['MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE', 'found MERGE'],
  ['WITH x AS (SELECT 1) DELETE FROM t', 'found DELETE'],
  ['CREATE TABLE x (a int)', 'found CREATE TABLE'],
  ['CREATE TABLE x AS SELECT 1', 'found CREATE TABLE AS'],
  ['DROP TABLE t', 'found DROP'],
  ['ALTER TABLE t ADD COLUMN b int', 'found ALTER TABLE'],
  ['TRUNCATE t', 'found TRUNCATE'],
  ["COPY t TO PROGRAM 'x'", 'found COPY'],
  ["COPY (select 1) TO '/tmp/x'", 'found COPY'],
  ['SET ROLE postgres', 'found SET'],
  ['SET statement_timeout = 0', 'found SET'],
  ['RESET ALL', 'found RESET'],
  ['DO $$ BEGIN PERFORM 1; END $$', 'found DO'],
  ['CALL p()', 'found CALL'],
  ['BEGIN', 'found BEGIN'],
  ['COMMIT', 'found COMMIT'],
  ['LISTEN ch', 'found LISTEN'],
  ["NOTIFY ch, 'x'", 'found NOTIFY'],
  ['PREPARE q AS SELECT 1', 'found PREPARE'],
  ['EXECUTE q', 'found EXECUTE'],
  ['DECLARE c CURSOR FOR SELECT 1', 'found DECLARE CURSOR'],
  ['VACUUM t', 'found VACUUM'],
  ['LOCK TABLE t', 'found LOCK'],
  ['GRANT SELECT ON t TO public', 'found GRANT'],
  ['SHOW search_path', 'found SHOW'],
  ['REFRESH MATERIALIZED VIEW mv', 'found REFRESH MATERIALIZED VIEW'],
  ['CREATE MATERIALIZED VIEW m AS SELECT 1', 'found CREATE MATERIALIZED VIEW'],
  // data-modifying CTEs, at any depth
  ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'found DELETE'],
  ['SELECT * FROM (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) s', 'found DELETE'],
  ['SELECT (WITH u AS (UPDATE t SET a = 1 RETURNING a) SELECT a FROM u LIMIT 1)', 'found UPDATE'],
  ['WITH a AS (WITH b AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM b) SELECT * FROM a', 'found INSERT'],
  ['SELECT 1 WHERE EXISTS (WITH m AS (MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE RETURNING *) SELECT 1 FROM m)', 'found MERGE'],
  ['EXPLAIN WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'found DELETE'],
  // SELECT INTO and row locks
  ['SELECT * INTO newtable FROM t', 'SELECT ... INTO'],
  ['SELECT * FROM t FOR UPDATE', 'FOR UPDATE'],
  ['SELECT * FROM (SELECT * FROM t FOR UPDATE) s', 'FOR UPDATE'],
  ['SELECT * FROM t FOR SHARE', 'FOR SHARE'],
  ['SELECT 1 WHERE 1 IN (SELECT a FROM t FOR NO KEY UPDATE)', 'FOR NO KEY UPDATE'],
  ['WITH x AS (SELECT * FROM t FOR KEY SHARE) SELECT * FROM x', 'FOR KEY SHARE'],
  // EXPLAIN that runs the statement, or explains anything but a SELECT
  ['EXPLAIN ANALYZE SELECT 1', 'EXPLAIN ANALYZE'],
  ['EXPLAIN ANALYSE SELECT 1', 'EXPLAIN ANALYZE'],
  ['EXPLAIN ANALYZE DELETE FROM t', 'EXPLAIN ANALYZE'],
  ['EXPLAIN (ANALYZE) SELECT 1', 'EXPLAIN ANALYZE'],
  ['EXPLAIN (ANALYZE, BUFFERS) SELECT 1', 'EXPLAIN ANALYZE'],
  ['EXPLAIN (analyze true) SELECT 1', 'EXPLAIN ANALYZE'],
  ['EXPLAIN (ANALYZE on, FORMAT JSON) SELECT 1', 'EXPLAIN ANALYZE'],
  ['EXPLAIN (analyze 1) SELECT 1', 'EXPLAIN ANALYZE'],
  ['EXPLAIN (analyze false, analyze true) SELECT 1', 'EXPLAIN ANALYZE'],
  ['EXPLAIN DELETE FROM t', 'found EXPLAIN DELETE'],
  ['EXPLAIN CREATE TABLE x AS SELECT 1', 'found EXPLAIN CREATE TABLE AS'],
  ['EXPLAIN EXECUTE q', 'found EXPLAIN EXECUTE'],
  // functions that reach outside the database, wherever they hide
  ["SELECT pg_read_file('/etc/passwd')", 'Function pg_read_file reads or writes files on the database server and is not allowed.'],
  ["SELECT pg_catalog.pg_read_file('/etc/passwd')", 'Function pg_read_file'],
  ["SELECT PG_Read_File('/etc/passwd')", 'Function pg_read_file'],
  ['SELECT "pg_read_file"(\'x\')', 'Function pg_read_file'],
  ['SELECT "PG_READ_FILE"(\'x\')', 'Function PG_READ_FILE'],
  ['SELECT U&"pg\\005fread\\005ffile"(\'x\')', 'Function pg_read_file'],
  ["SELECT set_config('a','b',false)", 'changes server settings'],
  ["SELECT pg_catalog.SET_CONFIG('search_path', '', false)", 'changes server settings'],
  ["SELECT * FROM pg_ls_dir('.')", 'Function pg_ls_dir'],
  ["SELECT * FROM ROWS FROM (pg_ls_waldir()) AS w", 'Function pg_ls_waldir'],
  ["SELECT * FROM t ORDER BY pg_read_binary_file('x')", 'Function pg_read_binary_file'],
  ["SELECT * FROM t, LATERAL (SELECT pg_stat_file('x')) s", 'Function pg_stat_file'],
  ["WITH x AS (SELECT lo_import('/etc/passwd')) SELECT * FROM x", 'Function lo_import'],
  ["SELECT lo_export(1, '/tmp/x')", 'large objects'],
  ['SELECT (SELECT lo_create(0))', 'Function lo_create'],
  ['SELECT pg_terminate_backend(123)', 'signals or controls'],
  ['SELECT pg_cancel_backend(pid) FROM pg_stat_activity', 'Function pg_cancel_backend'],
  ['SELECT pg_reload_conf()', 'Function pg_reload_conf'],
  ['SELECT 1 WHERE EXISTS (SELECT pg_promote())', 'Function pg_promote'],
  ['SELECT pg_switch_wal()', 'Function pg_switch_wal'],
  ['SELECT pg_stat_reset()', 'Function pg_stat_reset'],
  ["SELECT nextval('s')", 'changes a sequence'],
  ["SELECT setval('s', 1)", 'Function setval'],
  ["SELECT ('s'::regclass).nextval", 'Function nextval'],
  ["SELECT (t.path).pg_read_file FROM t", 'Function pg_read_file'],
  ['SELECT row_number() OVER (ORDER BY nextval(\'s\')) FROM t', 'Function nextval'],
  ['SELECT pg_advisory_lock(1)', 'advisory locks'],
  ['SELECT pg_try_advisory_xact_lock(1)', 'advisory locks'],
  ["SELECT dblink('host=x', 'select 1')", 'connects to another database server'],
  ["SELECT dblink_exec('x', 'delete from t')", 'Function dblink_exec'],
  ["SELECT query_to_xml('select pg_read_file(''x'')', true, true, '')", 'runs SQL text'],
  ["SELECT ts_stat('select to_tsvector(pg_read_file(''x''))')", 'runs SQL text'],
  ['SELECT txid_current()', 'assigns a transaction id'],
  ['SELECT pg_current_xact_id()', 'assigns a transaction id'],
  ["SELECT pg_notify('ch', 'x')", 'sends notifications'],
  ["SELECT pg_create_logical_replication_slot('s', 'pgoutput')", 'replication'],
  ["SELECT pg_replication_origin_create('x')", 'replication'],
  ["SELECT pg_logical_emit_message(true, 'p', 'x')", 'replication'],
  ["SELECT pg_file_write('x', 'y', false)", 'Function pg_file_write'],
  ["SELECT count(*) FILTER (WHERE pg_read_file('x') <> '') FROM t", 'Function pg_read_file'],
  ["SELECT a FROM t UNION SELECT pg_read_file('x')", 'Function pg_read_file'],
  ["VALUES (pg_read_file('x'))", 'Function pg_read_file'],
  ["SELECT pg_sleep(1), pg_read_file('x')", 'Function pg_read_file'],
  ["EXPLAIN SELECT pg_read_file('x')", 'Function pg_read_file'],
  ["SELECT * FROM t WHERE a = ANY (SELECT pg_advisory_unlock_all())", 'advisory locks'],
  ["SELECT * FROM t GROUP BY a HAVING max(setval('s', a)) > 0", 'Function setval'],
];

describe('checkReadOnly refuses', () => {
  it('has a corpus of at least 45 refused inputs', () => {
    expect(refused.length).toBeGreaterThanOrEqual(45);
  });

  it.each(refused)('%s', async (sql, fragment) => {
    const error = await failure(sql);
    expect(error.code).toBe(R);
    expect(error.message).toContain(fragment);
  });

  it('names the function in details', async () => {
    const error = await failure("SELECT pg_catalog.pg_read_file('/etc/passwd')");
    expect(error.details).toEqual({ function: 'pg_read_file' });
  });

  it('reports the number of statements in details', async () => {
    const error = await failure('select 1; select 2; select 3');
    expect(error.details).toEqual({ statements: 3 });
  });
});

const allowed: Array<[string, 'select' | 'explain', number]> = [
  ['select 1', 'select', 0],
  ['select now()', 'select', 0],
  ['SELECT pg_sleep(1)', 'select', 0],
  ["select pg_sleep_for('1 second'), pg_backend_pid(), current_setting('search_path')", 'select', 0],
  ['WITH x AS (SELECT 1) SELECT * FROM x', 'select', 0],
  ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT * FROM r', 'select', 0],
  ['select 1 union select 2 intersect select 3 except select 4', 'select', 0],
  ["VALUES (1, 'a'), (2, 'b')", 'select', 0],
  ['TABLE t', 'select', 0],
  ['select * from t where id = $1 and name = $2', 'select', 2],
  ['select $3::int, $1', 'select', 3],
  ['select * from generate_series(1, $1) g', 'select', 1],
  ['select row_number() over (partition by a order by b) from t', 'select', 0],
  ['select * from t where a in (select b from u) and exists (select 1 from v where v.x = t.x)', 'select', 0],
  ['select * from t, lateral (select * from u where u.t_id = t.id limit 1) s', 'select', 0],
  ["select currval('s'), lastval()", 'select', 0],
  ["select table_to_xml('t', true, false, '')", 'select', 0],
  ["select 'delete from t; drop table x' as text", 'select', 0],
  ['select nextval from t', 'select', 0],
  ["select lower('ABC'), upper(x) from t", 'select', 0],
  ['SELECT a, count(*) FROM t GROUP BY ROLLUP (a)', 'select', 0],
  ['-- leading comment\nselect 1', 'select', 0],
  ['EXPLAIN SELECT * FROM t', 'explain', 0],
  ['EXPLAIN (FORMAT JSON) SELECT 1', 'explain', 0],
  ['EXPLAIN (ANALYZE false) SELECT 1', 'explain', 0],
  ['EXPLAIN (ANALYZE off, COSTS false) SELECT 1', 'explain', 0],
  ['explain (analyze 0) select 1', 'explain', 0],
  ['EXPLAIN WITH x AS (SELECT 1) SELECT * FROM x', 'explain', 0],
  ['EXPLAIN SELECT * FROM t WHERE id = $1', 'explain', 1],
];

describe('checkReadOnly allows', () => {
  it.each(allowed)('%s', async (sql, kind, paramCount) => {
    const checked = await checkReadOnly(sql);
    expect(checked.kind).toBe(kind);
    expect(checked.paramCount).toBe(paramCount);
  });

  it.each([
    ['select 1;', 'select 1'],
    ['  select 1 ;  \n', 'select 1'],
    ['select 1;;', 'select 1'],
    ['; select 1', 'select 1'],
    ['select 1; -- done', 'select 1'],
    ['/* c */ select 1 /* d */', '/* c */ select 1 /* d */'],
    ['\tselect 1 -- note', 'select 1 -- note'],
    [`select 'é' as "naïve";`, `select 'é' as "naïve"`],
    ['select 1 /* ; */;', 'select 1 /* ; */'],
  ])('returns %j as %j', async (sql, expected) => {
    expect((await checkReadOnly(sql)).sql).toBe(expected);
  });

  it('checks many queries concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => checkReadOnly(`select $${i + 1}`)));
    expect(results.map((r) => r.paramCount)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});

describe('checkReadOnly parse errors', () => {
  it.each([
    ['selec 1', 1, 'syntax error at or near "selec"'],
    ['select 1 from', 14, 'syntax error at end of input'],
    ["select 'abc", 8, 'unterminated quoted string'],
    ['select 1 /* open', 10, 'unterminated /* comment'],
    ["select 'é', 'x' 'y'", 17, 'syntax error at or near'],
    ['select a,\n  from t', 13, 'line 2, column 3'],
  ])('%j is SQL_ERROR at position %i', async (sql, position, fragment) => {
    const error = await failure(sql);
    expect(error.code).toBe('SQL_ERROR');
    expect(error.details).toEqual({ position });
    expect(error.message).toContain(fragment);
    expect(error.message).toContain(`position ${position}`);
    expect(error.message).not.toMatch(/scan\.l|gram\.y|\.c\b|at .*:\d+:\d+/);
  });

  it('reports a query nested too deeply as SQL_ERROR', async () => {
    const error = await failure(`select ${'('.repeat(20000)}1${')'.repeat(20000)}`);
    expect(error.code).toBe('SQL_ERROR');
  });
});

describe('checkReadOnly validation', () => {
  it.each(['', '   ', '\n\t', '-- just a comment', '/* c */', ';', ' ; ; '])('%j is VALIDATION_ERROR', async (sql) => {
    expect((await failure(sql)).code).toBe('VALIDATION_ERROR');
  });

  it('refuses a NUL character, which would hide the rest of the text from the parser', async () => {
    expect((await failure('select 1\u0000; delete from t')).code).toBe('VALIDATION_ERROR');
  });

  it.each(['select $0', 'select $70000'])('%j has an invalid parameter number', async (sql) => {
    expect((await failure(sql)).code).toBe('VALIDATION_ERROR');
  });
});

describe('DENIED_FUNCTIONS', () => {
  const required = [
    'pg_read_file', 'pg_read_binary_file', 'pg_ls_dir', 'pg_ls_logdir', 'pg_ls_waldir', 'pg_ls_tmpdir',
    'pg_ls_archive_statusdir', 'pg_stat_file', 'lo_import', 'lo_export', 'lo_create', 'lo_unlink', 'lo_open',
    'lo_write', 'lo_put', 'lo_from_bytea', 'lo_truncate', 'set_config', 'pg_reload_conf', 'pg_rotate_logfile',
    'pg_terminate_backend', 'pg_cancel_backend', 'pg_promote', 'pg_switch_wal', 'pg_create_restore_point',
    'pg_start_backup', 'pg_backup_start', 'pg_backup_stop', 'pg_create_physical_replication_slot',
    'pg_create_logical_replication_slot', 'pg_drop_replication_slot', 'pg_replication_origin_create',
    'pg_replication_origin_session_setup', 'pg_logical_emit_message', 'pg_advisory_lock', 'pg_advisory_xact_lock_shared',
    'pg_advisory_unlock_all', 'pg_try_advisory_lock', 'nextval', 'setval', 'dblink', 'dblink_connect', 'dblink_exec',
    'pg_file_write', 'pg_file_rename', 'pg_file_unlink', 'pg_logdir_ls', 'pg_import_system_collations', 'pg_notify',
    'txid_current', 'pg_current_xact_id', 'query_to_xml', 'query_to_xml_and_xmlschema', 'cursor_to_xml',
    'pg_stat_reset', 'pg_stat_reset_shared', 'pg_prewarm', 'pg_wal_replay_pause', 'pg_wal_replay_resume',
  ];

  it.each(required)('denies %s', (name) => {
    expect(deniedFunctionReason(name)).toBeTypeOf('string');
    expect(deniedFunctionReason(name.toUpperCase())).toBeTypeOf('string');
  });

  it.each(['pg_sleep', 'now', 'table_to_xml', 'lower', 'log', 'currval', 'txid_current_if_assigned', 'count'])(
    'allows %s',
    (name) => {
      expect(deniedFunctionReason(name)).toBeUndefined();
    },
  );

  it('gives every group a reason and at least one name or prefix', () => {
    for (const group of DENIED_FUNCTIONS) {
      expect(group.reason.length).toBeGreaterThan(0);
      expect(group.names.length + group.prefixes.length).toBeGreaterThan(0);
    }
  });
});

describe('classifySql', () => {
  it.each([
    ['select 1', 'select'],
    ['VALUES (1)', 'select'],
    ['TABLE t', 'select'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'select'],
    ['select * from t for update', 'select'],
    ['select 1;', 'select'],
    ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'dml'],
    ['SELECT * FROM (WITH u AS (UPDATE t SET a = 1 RETURNING a) SELECT a FROM u) s', 'dml'],
    ['INSERT INTO t VALUES (1)', 'dml'],
    ['UPDATE t SET a = 1', 'dml'],
    ['DELETE FROM t', 'dml'],
    ['MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE', 'dml'],
    ['WITH x AS (SELECT 1) DELETE FROM t', 'dml'],
    ['CREATE TABLE x (a int)', 'ddl'],
    ['ALTER TABLE t ADD COLUMN b int', 'ddl'],
    ['ALTER TABLE t RENAME TO u', 'ddl'],
    ['DROP TABLE t', 'ddl'],
    ['TRUNCATE t', 'ddl'],
    ["COMMENT ON TABLE t IS 'x'", 'ddl'],
    ['GRANT SELECT ON t TO public', 'ddl'],
    ['REVOKE SELECT ON t FROM public', 'ddl'],
    ['CREATE VIEW v AS SELECT 1', 'ddl'],
    ['CREATE INDEX i ON t (a)', 'ddl'],
    ["CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'select 1'", 'ddl'],
    ['CREATE TABLE x AS SELECT 1', 'ddl'],
    ['SELECT * INTO x FROM t', 'ddl'],
    ['VACUUM t', 'other'],
    ['SET search_path = x', 'other'],
    ['EXPLAIN SELECT 1', 'other'],
    ['EXPLAIN ANALYZE DELETE FROM t', 'other'],
    ['COPY t TO STDOUT', 'other'],
    ['BEGIN', 'other'],
    ['COMMIT', 'other'],
    ['SHOW search_path', 'other'],
    ['selec 1', 'other'],
    ['', 'other'],
    ['-- only a comment', 'other'],
    ['select 1; select 2', 'other'],
  ])('%j is %s', async (sql, label) => {
    expect(await classifySql(sql)).toBe(label);
  });
});
