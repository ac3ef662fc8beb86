/**
 * What the SQLite export does beyond the contract suite, on a real file:
 * a statement that never ends is stopped (streaming rows, or inside one
 * endless step) and the next one runs; the mixed-storage-class rule; names
 * given twice; an unreadable file answering DATASOURCE_UNAVAILABLE from
 * both halves without its path; the start-up warnings.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDriver } from '../../../src/datasources/sqlite/sqlite-driver.ts';
import { quietLogger } from '../../../src/logger.ts';
import { ContractExports, failureOf } from '../contract-export.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';
import { SqliteTestFile } from './sqlite-test-file.ts';
import { sqliteUnderTest } from './sqlite-under-test.ts';

const ENDLESS = `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT n FROM c`;
const ENDLESS_STEP = `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT count(*) AS n FROM c CROSS JOIN (SELECT 1 FROM mixed LIMIT 1)`;

const file = new SqliteTestFile('export.db');
let under: DriverUnderTest;
const exports = new ContractExports();

beforeAll(async () => {
  under = sqliteUnderTest(file);
  await exports.open();
  for (const sql of [
    `CREATE TABLE mixed (id INTEGER PRIMARY KEY, i INTEGER, u, w)`,
    // u: text first, then an integer (exact as text); w: a real first, then an integer past 2^53.
    `INSERT INTO mixed VALUES (1, 1, 'a', 1.5), (2, 2, 5, 3), (3, 2.5, NULL, 9007199254740993)`,
  ]) {
    await under.admin(sql);
  }
});

afterAll(async () => {
  exports.close();
  await under.close();
});

/** Cancels `sql` once it runs; `readsFile`: it holds the file's read lock while it runs, so its end shows there too. */
async function runUntilStopped(sql: string, readsFile: boolean): Promise<void> {
  let stop: ((reason: 'cancel') => void) | undefined;
  const outcome = failureOf(exports.run(under, sql, { onStopper: (s) => (stop = s) }));
  await expect.poll(() => stop !== undefined && (!readsFile || file.readerActive())).toBe(true);
  stop!('cancel');
  // The export ends only once the statement has stopped streaming (or its process has ended).
  expect((await outcome).code).toBe('QUERY_CANCELLED');
  if (readsFile) await expect.poll(() => file.readerActive()).toBe(false);
}

describe('stopping a statement that never ends', () => {
  it('stops an endless recursive CTE that streams rows, and runs the next query', async () => {
    await runUntilStopped(ENDLESS, false);
    const next = await exports.run(under, `SELECT 1 AS one`);
    expect(next.rows).toEqual([['1']]);
  });

  it('stops one that never leaves its first step (an aggregate over it), and runs the next query', async () => {
    await runUntilStopped(ENDLESS_STEP, true);
    const next = await exports.run(under, `SELECT id FROM mixed ORDER BY id`);
    expect(next.rows).toEqual([['1'], ['2'], ['3']]);
  });

  it('ends one at the duration cap with QUERY_TIMEOUT when it has given no row', async () => {
    const error = await failureOf(exports.run(under, ENDLESS_STEP, { limits: { maxDurationMs: 300 } }));
    expect(error.code, error.message).toBe('QUERY_TIMEOUT');
    await expect.poll(() => file.readerActive()).toBe(false);
  });

  it('keeps the rows read before the duration cap of one that streams', async () => {
    const run = await exports.run(under, ENDLESS, { limits: { maxDurationMs: 300 } });
    expect(run.result.cappedBy).toBe('maxDuration');
    expect(run.rows.length).toBe(run.result.rows);
    expect(run.rows.slice(0, 3)).toEqual([['1'], ['2'], ['3']]);
  });
});

describe('columns that mix storage classes', () => {
  it('converts a value of another class where that is exact', async () => {
    const run = await exports.run(under, `SELECT u FROM mixed WHERE u IS NOT NULL ORDER BY id`);
    expect(run.columns).toEqual([{ name: 'u', type: 'text' }]);
    expect(run.rows).toEqual([['a'], ['5']]);
    const reals = await exports.run(under, `SELECT w FROM mixed WHERE id < 3 ORDER BY id`);
    expect(reals.columns).toEqual([{ name: 'w', type: 'real' }]);
    expect(reals.rows).toEqual([[1.5], [3]]);
  });

  it('fails with SQL_ERROR naming the column and the CAST when a value would not be exact', async () => {
    for (const [sql, column] of [
      [`SELECT i FROM mixed ORDER BY id`, '"i"'],
      [`SELECT w FROM mixed ORDER BY id`, '"w"'],
      [`SELECT u FROM mixed ORDER BY id DESC`, '"u"'],
    ] as const) {
      const error = await failureOf(exports.run(under, sql));
      expect(error.code, sql).toBe('SQL_ERROR');
      expect(error.message).toContain(`Column ${column}`);
      expect(error.message).toContain(`CAST(${column} AS TEXT)`);
    }
  });

  it('runs the query again once the column is CAST to one type', async () => {
    const run = await exports.run(under, `SELECT CAST(i AS TEXT) AS i FROM mixed ORDER BY id`);
    expect(run.columns).toEqual([{ name: 'i', type: 'text' }]);
    expect(run.rows).toEqual([['1'], ['2'], ['2.5']]);
  });
});

describe('results and requests', () => {
  it('sends a result of many frames whole and in order (a frame\'s buffer is written into again once it is sent)', async () => {
    const rows = 120_000;
    const sql = `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${rows}) SELECT n, 'row ' || n || ' of ' || (n * 7919 % 1000003) AS label, n * 1.000001 AS x FROM g`;
    await under.admin(`CREATE TABLE many AS ${sql}`);
    const expected = Array.from({ length: rows }, (_, i) => [String(i + 1), `row ${i + 1} of ${((i + 1) * 7919) % 1000003}`, (i + 1) * 1.000001]);
    // Read through the row function (declared types) and through the row iterator (none declared).
    for (const statement of ['SELECT * FROM many ORDER BY n', sql]) {
      const run = await exports.run(under, statement);
      expect(run.rows.length).toBe(rows);
      const wrong = run.rows.findIndex((row, i) => JSON.stringify(row) !== JSON.stringify(expected[i]));
      expect(wrong === -1 ? null : { at: wrong, got: run.rows[wrong], expected: expected[wrong] }).toBeNull();
    }
  });

  it('keeps a name given twice, as sent', async () => {
    const run = await exports.run(under, `SELECT 1 AS a, 'x' AS a, NULL AS "A"`);
    expect(run.columns).toEqual([{ name: 'a', type: 'integer' }, { name: 'a', type: 'text' }, { name: 'A', type: 'null' }]);
    expect(run.rows).toEqual([['1', 'x', null]]);
  });

  it('binds values as SQLite numbers its placeholders, and refuses a count that does not match', async () => {
    const run = await exports.run(under, `SELECT ?, ?3, ? AS last`, { params: ['a', 'unused', 3, 4.5] });
    expect(run.rows).toEqual([['a', '3', 4.5]]);
    expect((await failureOf(exports.run(under, `SELECT ?1`, { params: [] }))).code).toBe('VALIDATION_ERROR');
    expect((await failureOf(exports.run(under, `SELECT ?1`, { params: [{ a: 1 }] }))).code).toBe('VALIDATION_ERROR');
  });
});

describe('a file that cannot be read', () => {
  it('answers DATASOURCE_UNAVAILABLE from both halves, never with its path', async () => {
    const missing = join(file.dir, 'secret-name.db');
    const notSqlite = join(file.dir, 'not-sqlite.db');
    writeFileSync(notSqlite, 'this is not a database file, only text that is long enough to look like a header'.repeat(20));
    for (const path of [missing, notSqlite]) {
      const driver = openSqliteDriver({ id: 'gone', url: `sqlite://${path}` }, quietLogger);
      const health = await failureOf(driver.health());
      const exported = await failureOf(exports.run({ ...under, driver, url: `sqlite://${path}` }, `SELECT 1 AS one FROM sqlite_schema`));
      for (const error of [health, exported]) {
        expect(error.code, error.message).toBe('DATASOURCE_UNAVAILABLE');
        expect(error.details).toMatchObject({ retryable: true });
        expect(error.message).not.toContain(file.dir);
        expect(error.message).not.toContain('secret-name');
      }
    }
  });

  it('warns at start-up of a missing file, and of one the server may write', async () => {
    const missing = openSqliteDriver({ id: 'gone', url: `sqlite://${join(file.dir, 'missing.db')}` }, quietLogger);
    expect(await missing.startupWarnings()).toEqual([expect.stringContaining('does not exist')]);
    // The test file is writable by the user the tests run as.
    expect(await under.driver.startupWarnings()).toEqual([expect.stringContaining('may write the SQLite file')]);
  });
});
