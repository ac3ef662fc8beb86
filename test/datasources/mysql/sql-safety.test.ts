/**
 * The MySQL/MariaDB statement check without a server: what it refuses
 * (writes, files, locks, variables, executable comments and the text the
 * parser and the server would read differently), what it passes with its
 * kind, text, offset and parameters, in both grammars; the chat labels and
 * a statement's own LIMIT.
 */
import { describe, expect, it } from 'vitest';
import { SluiceError } from '../../../src/errors.ts';
import { checkReadOnly, classifySql, ownLimit } from '../../../src/datasources/mysql/sql-safety.ts';
import type { MysqlFlavor } from '../../../src/datasources/mysql/sql-parser.ts';

const FLAVORS: MysqlFlavor[] = ['mariadb', 'mysql'];

function refusal(sql: string, flavor: MysqlFlavor): SluiceError {
  try {
    checkReadOnly(sql, flavor);
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    return error as SluiceError;
  }
  throw new Error(`the check passed ${JSON.stringify(sql)}`);
}

const REFUSED: [string, RegExp][] = [
  [`SELECT 1 /*! , LOAD_FILE('/etc/passwd') */`, /Executable comments/],
  [`SELECT 1 /*!50000 , 2 */`, /Executable comments/],
  [`SELECT 1 /*M!100000 , 2 */`, /Executable comments/],
  [`/*!40101 SET @a = 1 */ SELECT 1`, /Executable comments/],
  [`SELECT /*+ MAX_EXECUTION_TIME(0) */ 1`, /Optimizer hints/],
  // The parser takes --x for a comment; the server computes 1 - (-x), and LOAD_FILE with it.
  [`SELECT 1 --x, LOAD_FILE('/etc/passwd')`, /two minus signs/],
  [`SELECT * FROM t INTO OUTFILE '/tmp/x'`, /INTO/],
  [`SELECT a INTO DUMPFILE '/tmp/x' FROM t`, /INTO/],
  [`SELECT a FROM t INTO @x`, /INTO/],
  [`SELECT 1 UNION SELECT 2 INTO @y`, /INTO/],
  [`SELECT @a := 1`, /:=/],
  [`SELECT * FROM t WHERE (@a := a) > 0`, /:=/],
  [`SELECT * FROM t FOR UPDATE`, /locking/],
  [`SELECT * FROM (SELECT * FROM t FOR SHARE) q`, /locking/],
  [`SELECT * FROM t LOCK IN SHARE MODE`, /locking/],
  [`SELECT LOAD_FILE('/etc/passwd')`, /reads files/],
  [`SELECT \`load_file\`('/etc/passwd')`, /reads files/],
  [`SELECT get_lock /* gap */ ('x', 0)`, /lock/],
  [`SELECT RELEASE_ALL_LOCKS()`, /lock/],
  [`SELECT IS_USED_LOCK('x')`, /lock/],
  [`SELECT NEXTVAL(s)`, /sequence/],
  [`SELECT SETVAL(s, 5)`, /sequence/],
  [`SELECT NEXT VALUE FOR s`, /sequence/],
  [`SELECT PREVIOUS VALUE FOR s`, /sequence/],
  [`SELECT MASTER_GTID_WAIT('0-1-1')`, /replication/],
  [`SELECT WAIT_FOR_EXECUTED_GTID_SET('x')`, /replication/],
  [`SELECT * FROM JSON_TABLE(LOAD_FILE('/etc/passwd'), '$' COLUMNS (a INT PATH '$')) AS j`, /reads files/],
  [`SELECT 1; SELECT 2`, /one statement/],
  [`SELECT 1; DELETE FROM t`, /one statement/],
  [`EXPLAIN ANALYZE SELECT 1`, /ANALYZE/],
  [`EXPLAIN FORMAT=JSON DELETE FROM t`, /EXPLAIN is only allowed/],
  [`WITH d AS (SELECT 1) DELETE FROM t`, /Only SELECT/],
  ...['HANDLER t OPEN', "XA START 'x'", 'LOCK TABLES t READ', 'UNLOCK TABLES', 'SET TRANSACTION READ WRITE', 'SET @a = 1', 'CALL p()', 'DO 1',
    'ANALYZE TABLE t', 'OPTIMIZE TABLE t', 'REPAIR TABLE t', 'CHECK TABLE t', 'CHECKSUM TABLE t', 'FLUSH TABLES', 'KILL 1', 'SHUTDOWN',
    "LOAD DATA INFILE '/etc/passwd' INTO TABLE t", "INSTALL PLUGIN x SONAME 'x.so'", 'UNINSTALL PLUGIN x', "PREPARE p FROM 'SELECT 1'",
    'EXECUTE p', 'USE mysql', "GRANT ALL ON *.* TO 'x'@'%'", "BINLOG 'AAAA'", 'INSERT INTO t VALUES (1)', 'SHOW TABLES', 'VALUES (1)']
    .map((sql): [string, RegExp] => [sql, /Only SELECT/]),
];

describe('the MySQL/MariaDB statement check', () => {
  for (const flavor of FLAVORS) {
    it.each(REFUSED)(`refuses %s (${flavor})`, (sql, reason) => {
      const error = refusal(sql, flavor);
      expect(error.code, error.message).toBe('READ_ONLY_VIOLATION');
      expect(error.message).toMatch(reason);
    });

    it(`passes reads, cutting the statement from what was sent (${flavor})`, () => {
      expect(checkReadOnly('  SELECT 1 ;  ', flavor)).toEqual({ kind: 'select', sql: 'SELECT 1', offset: 2, paramCount: 0 });
      expect(checkReadOnly('/* é😀 */; SELECT 1 -- done', flavor)).toEqual({ kind: 'select', sql: 'SELECT 1', offset: 10, paramCount: 0 });
      expect(checkReadOnly('EXPLAIN SELECT a FROM t', flavor).kind).toBe('explain');
      expect(checkReadOnly('WITH x AS (SELECT 1 AS a) SELECT a FROM x', flavor).kind).toBe('select');
      expect(checkReadOnly(`SELECT CAST(a AS SIGNED), GROUP_CONCAT(b SEPARATOR ',') FROM t GROUP BY a`, flavor).kind).toBe('select');
      expect(checkReadOnly(`SELECT j.a FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$')) AS j`, flavor).kind).toBe('select');
    });

    it(`leaves comment and placeholder marks inside strings and quoted names alone (${flavor})`, () => {
      const text = `SELECT 'it''s ? -- /*! no */ INTO', "a\\" ?", \`we\`\`ird ? INTO\` FROM t WHERE x = ?`;
      expect(checkReadOnly(text, flavor)).toMatchObject({ sql: text, paramCount: 1 });
      // A # comment runs to the end of its line, semicolon and all; a trailing comment is not sent.
      expect(checkReadOnly('SELECT 1 # a comment; DELETE FROM t', flavor).sql).toBe('SELECT 1');
      expect(checkReadOnly('SELECT 1 # a comment;\n+ 1', flavor).sql).toBe('SELECT 1 # a comment;\n+ 1');
    });

    it(`counts ? in order, :n by the highest number, and refuses a mix (${flavor})`, () => {
      expect(checkReadOnly('SELECT ?, ? FROM t WHERE a = ?', flavor).paramCount).toBe(3);
      expect(checkReadOnly('SELECT :2, :1, :2 WHERE :5 IS NULL', flavor).paramCount).toBe(5);
      expect(refusal('SELECT ?, :1', flavor).code).toBe('VALIDATION_ERROR');
      expect(refusal('SELECT :0', flavor).code).toBe('VALIDATION_ERROR');
    });

    it(`answers a syntax error with SQL_ERROR at its position, in code points of what was sent (${flavor})`, () => {
      const error = refusal('/* é😀 */ SELECT * FRM t', flavor);
      expect(error.code).toBe('SQL_ERROR');
      // The comment is 9 code points (and 10 UTF-16 units): FRM is the 19th character.
      expect(error.details).toEqual({ position: 19 });
      expect(refusal("SELECT 'unclosed", flavor).code).toBe('SQL_ERROR');
      expect(refusal('', flavor).code).toBe('VALIDATION_ERROR');
      expect(refusal(' ; -- only a comment', flavor).code).toBe('VALIDATION_ERROR');
      expect(refusal('SELECT 1\0', flavor).code).toBe('VALIDATION_ERROR');
    });

    it(`labels SQL for the chat and reads a statement's own LIMIT (${flavor})`, () => {
      expect(classifySql('SELECT 1', flavor)).toBe('select');
      expect(classifySql('DELETE FROM t', flavor)).toBe('dml');
      expect(classifySql('CREATE TABLE t (a INT)', flavor)).toBe('ddl');
      expect(classifySql("SELECT * FROM t INTO OUTFILE '/tmp/x'", flavor)).toBe('other');
      expect(classifySql('SELECT 1; SELECT 2', flavor)).toBe('other');
      expect(ownLimit('SELECT a FROM t LIMIT 7', flavor)).toBe(7);
      expect(ownLimit('SELECT a FROM t LIMIT 5, 10', flavor)).toBe(10);
      expect(ownLimit('SELECT a FROM t LIMIT 10 OFFSET 5', flavor)).toBe(10);
      expect(ownLimit('SELECT a FROM t', flavor)).toBeNull();
      expect(ownLimit('not sql', flavor)).toBeNull();
    });
  }
});
