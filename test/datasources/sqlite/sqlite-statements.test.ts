/**
 * The SQLite statement check, labels, own LIMIT and result types, from the
 * SQLite grammar alone (no file): hostile spellings refused wherever they
 * hide, reads passed with their parameters counted as SQLite counts them.
 */
import { describe, expect, it } from 'vitest';
import { SluiceError } from '../../../src/errors.ts';
import { checkSqliteStatement } from '../../../src/datasources/sqlite/sql/check-statement.ts';
import { classifySqlite, sqliteOwnLimit } from '../../../src/datasources/sqlite/sql/classify.ts';
import { denseParameters } from '../../../src/datasources/sqlite/sql/parameters.ts';
import { parseOne } from '../../../src/datasources/sqlite/sql/parse-sqlite.ts';
import { resultTypes } from '../../../src/datasources/sqlite/sql/result-types.ts';

async function refusal(sql: string): Promise<SluiceError> {
  const error = await checkSqliteStatement(sql).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, sql).toBeInstanceOf(SluiceError);
  return error as SluiceError;
}

describe('the SQLite read-only check', () => {
  it.each([
    `select load_extension('x')`,
    `SELECT LOAD_EXTENSION('x')`,
    `SELECT [load_extension]('x')`,
    `SELECT \`readfile\`('/etc/passwd')`,
    `SELECT * FROM t WHERE a IN (SELECT writefile('/tmp/x', b) FROM u)`,
    `WITH x AS (SELECT readfile('/etc/passwd') AS f) SELECT f FROM x`,
    `SELECT (SELECT edit('a'))`,
    `SELECT 1 FROM t ORDER BY fts3_tokenizer('simple')`,
    `SELECT * FROM "sqlite_dbpage"`,
    `SELECT * FROM temp.sqlite_dbpage`,
    `SELECT * FROM t JOIN sqlite_dbdata ON 1`,
    `SELECT * FROM PRAGMA_DATABASE_LIST`,
    `SELECT * FROM pragma_temp_store_directory`,
    `SELECT * FROM pragma_journal_mode('delete')`,
    `SELECT 1 WHERE 'x' IN 'pragma_database_list'`,
    `PRAGMA main.journal_mode = DELETE`,
    `PRAGMA table_info = 1`,
    `/* SELECT */ DELETE FROM t`,
    `SELECT 1;;; DELETE FROM t`,
    `EXPLAIN QUERY PLAN VACUUM`,
    `DETACH main`,
  ])('refuses %s with READ_ONLY_VIOLATION', async (sql) => {
    const error = await refusal(sql);
    expect(error.code, error.message).toBe('READ_ONLY_VIOLATION');
  });

  it('names the statement it refuses, and counts several', async () => {
    expect((await refusal(`REPLACE INTO t VALUES (1)`)).message).toContain('found REPLACE');
    expect((await refusal(`ATTACH 'x.db' AS y`)).message).toContain('found ATTACH');
    expect((await refusal(`SELECT 1; SELECT 2; SELECT 3`)).details).toMatchObject({ statements: 3 });
  });

  it('refuses named parameters and out-of-range numbers as VALIDATION_ERROR', async () => {
    for (const sql of [`SELECT :name`, `SELECT @name`, `SELECT $name`, `SELECT $1`, `SELECT ?0`, `SELECT ?32767`]) {
      expect((await refusal(sql)).code, sql).toBe('VALIDATION_ERROR');
    }
  });

  it('refuses empty text, comments alone and a NUL as VALIDATION_ERROR', async () => {
    for (const sql of ['', '   ', '-- nothing', '/* a */ ;', 'SELECT 1\0; DELETE FROM t']) expect((await refusal(sql)).code).toBe('VALIDATION_ERROR');
  });

  it('answers a syntax error with its position in characters, on any line', async () => {
    const error = await refusal(`SELECT 'é😀'\nFROM FROM t`);
    expect(error.code).toBe('SQL_ERROR');
    expect(error.details).toEqual({ position: 18 });
    expect(error.message).toContain('line 2, column 6');
  });

  it('counts parameters as SQLite numbers them', async () => {
    expect((await checkSqliteStatement(`SELECT ?, ?`)).paramCount).toBe(2);
    expect((await checkSqliteStatement(`SELECT ?3, ?`)).paramCount).toBe(4);
    expect((await checkSqliteStatement(`SELECT ?2 WHERE ?2 = ?1`)).paramCount).toBe(2);
    // In a string or a comment a question mark is no parameter.
    expect((await checkSqliteStatement(`SELECT '?1' -- ?9`)).paramCount).toBe(0);
  });

  it('passes column names that look like refused functions', async () => {
    await expect(checkSqliteStatement(`SELECT edit, readfile FROM t`)).resolves.toMatchObject({ kind: 'select' });
    await expect(checkSqliteStatement(`SELECT * FROM pragma_table_info('t')`)).resolves.toMatchObject({ kind: 'select' });
  });
});

describe('parameters as the export binds them', () => {
  it('writes every placeholder as ?N without gaps, and the values in that order', () => {
    const sql = `SELECT ?, ?5 WHERE ?5 > ?`;
    expect(denseParameters(sql, parseOne(sql)!, ['a', 'b', 'c', 'd', 'e', 'f'])).toEqual({ sql: `SELECT ?1, ?2 WHERE ?2 > ?3`, values: ['a', 'e', 'f'] });
  });
});

describe('labels and LIMIT', () => {
  it('labels statements for chat without running them', async () => {
    expect(await classifySqlite('SELECT 1')).toBe('select');
    expect(await classifySqlite('VALUES (1)')).toBe('select');
    expect(await classifySqlite('INSERT INTO t VALUES (1)')).toBe('dml');
    expect(await classifySqlite('REPLACE INTO t VALUES (1)')).toBe('dml');
    expect(await classifySqlite('CREATE TABLE t (a)')).toBe('ddl');
    expect(await classifySqlite('DROP VIEW v')).toBe('ddl');
    expect(await classifySqlite('VACUUM')).toBe('other');
    expect(await classifySqlite('SELECT 1; SELECT 2')).toBe('other');
    expect(await classifySqlite('not sql at all')).toBe('other');
  });

  it("reads a statement's own LIMIT, in either spelling, and of a compound", async () => {
    expect(await sqliteOwnLimit('SELECT * FROM t LIMIT 10')).toBe(10);
    expect(await sqliteOwnLimit('SELECT * FROM t LIMIT 10 OFFSET 5')).toBe(10);
    expect(await sqliteOwnLimit('SELECT * FROM t LIMIT 5, 10')).toBe(10);
    expect(await sqliteOwnLimit('SELECT 1 UNION ALL SELECT 2 LIMIT 1')).toBe(1);
    expect(await sqliteOwnLimit('SELECT * FROM t LIMIT ?1')).toBeNull();
    expect(await sqliteOwnLimit('SELECT * FROM (SELECT * FROM t LIMIT 3)')).toBeNull();
  });
});

describe('result types from the select list', () => {
  it('types CASTs, literals, comparisons and single-class functions, and follows * into one subquery', () => {
    expect(resultTypes(`SELECT CAST(a AS BOOLEAN), 1, 1.5, 'x', x'00', a = 1, count(*), avg(a), upper(a), a + 1, max(a) FROM t`)).toEqual([
      'BOOLEAN', 'integer', 'real', 'text', 'blob', 'integer', 'integer', 'real', 'text', null, null,
    ]);
    expect(resultTypes(`SELECT * FROM (SELECT count(*) AS n, b FROM t) WHERE ?1 = 1`)).toEqual(['integer', null]);
    expect(resultTypes(`SELECT count(*) FROM t UNION SELECT 'x'`)).toEqual(['integer']);
  });

  it('gives none where the list does not line up with the columns', () => {
    expect(resultTypes(`SELECT *, count(*) FROM t`)).toBeNull();
    expect(resultTypes(`SELECT * FROM t`)).toBeNull();
    expect(resultTypes(`SELECT a, b FROM t`)).toBeNull();
    expect(resultTypes(`EXPLAIN SELECT 1`)).toBeNull();
  });
});
