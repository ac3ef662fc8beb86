/**
 * Read-only bypass attempts on MariaDB through the whole path a query takes
 * (the statement check, then the export on the worker's session), with a
 * root connection ON PURPOSE: the worst case, a user whom every privilege
 * allows what the check must refuse. Every attempt is refused, and
 * afterwards the canary table, the sequence, the database's tables and
 * columns, the users, the named locks and the server's files are as they
 * were, and the export's session is still READ ONLY.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMysqlExportDriver } from '../../../src/datasources/mysql/export/mysql-export-driver.ts';
import { openMysqlDriver } from '../../../src/datasources/mysql/mysql-driver.ts';
import { SluiceError } from '../../../src/errors.ts';
import { quietLogger } from '../../../src/logger.ts';
import { ContractExports, failureOf } from '../contract-export.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';
import { adminClient } from './admin-client.ts';
import { mysqlTitle, NO_MYSQL, urlWithDatabase } from './mysql-test-url.ts';

const C = 'sluice_bypass';
const LOCK = 'sluice_bypass_lock';

/** Where the server could write a file: secure_file_priv's directory, or /tmp when it allows any (or none). */
function targets(securePriv: string | null): string[] {
  const dir = securePriv === null || securePriv === '' ? '/tmp' : securePriv;
  return ['sluice-bypass-out', 'sluice-bypass-dump', 'sluice-bypass-hidden'].map((name) => join(dir, name));
}

function attempts([out, dump, hidden]: string[]): string[] {
  return [
    // Writes and more than one statement.
    `DELETE FROM t`, `UPDATE t SET v = 'pwned'`, `INSERT INTO t VALUES (999, 'x')`, `REPLACE INTO t VALUES (1, 'pwned')`,
    `INSERT INTO t SELECT 1000, 'x'`, `WITH d AS (SELECT 1) DELETE FROM t`, `SELECT 1; DELETE FROM t`, `SELECT 1 ;DELETE FROM t`,
    `COMMIT; DELETE FROM t`, `SELECT 1 /* ; */; DELETE FROM t`, `SELECT 1 -- comment\n; DELETE FROM t`, `/* harmless */ DeLeTe /* really */ FROM t`,
    `TRUNCATE t`, `DROP TABLE t`, `ALTER TABLE t ADD COLUMN pwned INT`, `CREATE TABLE pwned (a INT)`, `CREATE TEMPORARY TABLE pwned (a INT)`,
    `RENAME TABLE t TO t2`, `CREATE USER pwned`, `GRANT ALL ON *.* TO 'pwned'@'%'`, `CREATE OR REPLACE VIEW pwned AS SELECT 1`,
    // Executable comments and hints, which the server runs and other readers skip.
    `/*! DELETE FROM t */`, `/*!50000 DELETE FROM t */`, `SELECT 1 /*!, (SELECT COUNT(*) FROM t) */`, `SELECT 1 /*!; DELETE FROM t */`,
    `SELECT * FROM t /*!50000 INTO OUTFILE '${hidden}' */`, `SELECT * FROM t /*M!100000 INTO OUTFILE '${hidden}' */`,
    `SELECT /*+ MAX_EXECUTION_TIME(0) */ 1`, `SELECT /*+ SET_VAR(sql_mode='') */ 1`,
    // Files.
    `SELECT * FROM t INTO OUTFILE '${out}'`, `SELECT v FROM t LIMIT 1 INTO DUMPFILE '${dump}'`, `SELECT 1 UNION SELECT v FROM t INTO OUTFILE '${out}'`,
    `SELECT LOAD_FILE('/etc/passwd')`, `SELECT load_file(CONCAT('/etc/', 'passwd'))`, `SELECT \`LOAD_FILE\`('/etc/passwd')`,
    `SELECT 1 --x, LOAD_FILE('/etc/passwd')`, `SELECT 1 #x\n, LOAD_FILE('/etc/passwd')`, `SELECT 'a\\' , LOAD_FILE('/etc/passwd'), ''`,
    `LOAD DATA INFILE '/etc/hostname' INTO TABLE t`, `LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE t`, `SELECT sys_exec('touch ${out}')`,
    // Variables, locks, sequences, replication waits.
    `SELECT v INTO @pwned FROM t LIMIT 1`, `SELECT v FROM t LIMIT 1 INTO @pwned`, `SELECT @pwned := v FROM t`, `SELECT * FROM t WHERE (@x := 1) = 1`,
    `SELECT * FROM t FOR UPDATE`, `SELECT * FROM t FOR UPDATE SKIP LOCKED`, `SELECT * FROM (SELECT * FROM t FOR UPDATE) q`, `SELECT * FROM t LOCK IN SHARE MODE`,
    `SELECT * FROM t FOR SHARE`, `SELECT GET_LOCK('${LOCK}', 0)`, `SELECT get_lock /* c */ ('${LOCK}', 0)`, `SELECT \`get_lock\`('${LOCK}', 0)`,
    `SELECT IS_FREE_LOCK('${LOCK}')`, `SELECT IS_USED_LOCK('${LOCK}')`, `SELECT RELEASE_LOCK('${LOCK}')`, `SELECT RELEASE_ALL_LOCKS()`,
    `SELECT NEXTVAL(s)`, `SELECT SETVAL(s, 1000)`, `SELECT LASTVAL(s)`, `SELECT NEXT VALUE FOR s`, `SELECT PREVIOUS VALUE FOR s`,
    `SELECT MASTER_POS_WAIT('log', 4, 0.1)`, `SELECT MASTER_GTID_WAIT('0-1-1', 0.1)`, `SELECT SOURCE_POS_WAIT('log', 4, 0.1)`, `SELECT WAIT_FOR_EXECUTED_GTID_SET('x', 0.1)`,
    `SELECT LAST_INSERT_ID(5)`,
    // Statements that lock, lift read-only, run other SQL, or leave the database.
    `HANDLER t OPEN`, `XA START 'pwned'`, `LOCK TABLES t WRITE`, `UNLOCK TABLES`, `SET SESSION TRANSACTION READ WRITE`, `SET TRANSACTION READ WRITE`,
    `SET @@SESSION.tx_read_only = 0`, `SET max_statement_time = 0`, `SET STATEMENT max_statement_time = 0 FOR SELECT 1`, `SET sql_mode = 'NO_BACKSLASH_ESCAPES'`,
    `START TRANSACTION READ WRITE`, `BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT x`, `CALL p()`, `DO GET_LOCK('${LOCK}', 0)`, `DO 1`,
    `ANALYZE TABLE t`, `ANALYZE SELECT * FROM t`, `ANALYZE FORMAT=JSON DELETE FROM t`, `EXPLAIN ANALYZE SELECT * FROM t`, `EXPLAIN DELETE FROM t`, `EXPLAIN FORMAT=JSON UPDATE t SET v = 'x'`,
    `OPTIMIZE TABLE t`, `REPAIR TABLE t`, `CHECK TABLE t`, `CHECKSUM TABLE t`, `FLUSH TABLES`, `FLUSH TABLES WITH READ LOCK`, `KILL 1`, `KILL QUERY 1`, `SHUTDOWN`,
    `INSTALL PLUGIN pwned SONAME 'pwned.so'`, `UNINSTALL PLUGIN pwned`, `INSTALL SONAME 'pwned'`, `PREPARE p FROM 'DELETE FROM t'`, `EXECUTE p`, `DEALLOCATE PREPARE p`,
    `USE mysql`, `BINLOG 'AAAA'`, `PURGE BINARY LOGS BEFORE NOW()`, `CHANGE MASTER TO MASTER_HOST = '127.0.0.1'`, `SHOW GRANTS`, `SELECT 1\0; DELETE FROM t`,
  ];
}

describe.skipIf(NO_MYSQL)(mysqlTitle('read-only bypass attempts on MySQL/MariaDB, as root'), () => {
  const admin = adminClient();
  const url = urlWithDatabase(C);
  const exports = new ContractExports();
  let under: DriverUnderTest;
  let files: string[] = [];

  async function snapshot(): Promise<string> {
    const [rows] = await admin.query(`SELECT CONCAT(COUNT(*), ':', COALESCE(GROUP_CONCAT(v ORDER BY id), '')) AS s FROM ${C}.t`);
    const [seq] = await admin.query(`SELECT next_not_cached_value AS v FROM ${C}.s`);
    const [tables] = await admin.query(`SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${C}'`);
    const [cols] = await admin.query(`SELECT COUNT(*) AS n FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '${C}'`);
    const [users] = await admin.query(`SELECT COUNT(*) AS n FROM mysql.user WHERE User = 'pwned'`);
    return [rows!.s, seq!.v, tables!.n, cols!.n, users!.n].join('|');
  }

  beforeAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${C}`);
    await admin.query(`CREATE DATABASE ${C}`);
    await admin.query(`CREATE TABLE ${C}.t (id INT PRIMARY KEY, v VARCHAR(20))`);
    await admin.query(`INSERT INTO ${C}.t VALUES (1, 'one'), (2, 'two')`);
    await admin.query(`CREATE SEQUENCE ${C}.s`);
    await admin.query(`CREATE PROCEDURE ${C}.p() DELETE FROM ${C}.t`);
    const [priv] = await admin.query('SELECT @@secure_file_priv AS dir');
    files = targets((priv?.dir as string | null | undefined) ?? null);
    await exports.open();
    under = {
      driver: openMysqlDriver({ id: 'bypass', url }, quietLogger),
      exports: createMysqlExportDriver(),
      url,
      admin: (sql) => admin.query(sql),
      engineError: async () => undefined,
      close: async () => undefined,
    };
  });

  afterAll(async () => {
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${C}`);
    } finally {
      exports.close();
      await Promise.all([under.driver.close(), under.exports.close(), admin.end()]);
    }
  });

  it('refuses every attempt, and nothing changed, no file was written, no lock is held', async () => {
    const before = await snapshot();
    for (const sql of attempts(files)) {
      const error = await failureOf(exports.run(under, sql));
      expect(['READ_ONLY_VIOLATION', 'SQL_ERROR', 'VALIDATION_ERROR'], `${sql}: ${error.code} ${error.message}`).toContain(error.code);
    }
    expect(await snapshot()).toBe(before);
    for (const file of files) expect(existsSync(file), file).toBe(false);
    const [lock] = await admin.query(`SELECT IS_USED_LOCK('${LOCK}') AS holder`);
    expect(lock!.holder).toBeNull();
  });

  it('keeps the export session READ ONLY: the engine refuses writes no check saw, and the session says so', async () => {
    const before = await snapshot();
    for (const sql of [`SELECT NEXTVAL(s)`, `SELECT * FROM t INTO OUTFILE '${files[0]}'`, `DELETE FROM t`, `CREATE TABLE pwned (a INT)`]) {
      const error = await failureOf(exports.runUnchecked(under, { sql, kind: 'select' }));
      expect(error).toBeInstanceOf(SluiceError);
      expect(['READ_ONLY_VIOLATION', 'VALIDATION_ERROR'], `${sql}: ${error.code} ${error.message}`).toContain(error.code);
    }
    const session = await exports.run(under, 'SELECT @@SESSION.tx_read_only AS ro, @@SESSION.time_zone AS tz');
    // @@tx_read_only is a BIGINT: an exact string.
    expect(session.rows).toEqual([['1', '+00:00']]);
    expect(await snapshot()).toBe(before);
    expect(existsSync(files[0]!)).toBe(false);
  });
});
