/**
 * The read-only boundary end to end on a real file, as the PostgreSQL
 * boundary is tested: every statement of a bypass corpus goes through the
 * whole path (check, then export), and again straight to the export half
 * as if the check had passed it, so the engine's own boundary (read-only
 * open, query_only, no step for a statement without result columns) is
 * proved without the parser. Afterwards the file's bytes are unchanged
 * and nothing new sits beside it or where the corpus tried to write.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractExports, failureOf } from '../contract-export.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';
import { SqliteTestFile } from './sqlite-test-file.ts';
import { sqliteUnderTest } from './sqlite-under-test.ts';

const file = new SqliteTestFile('boundary.db');
const elsewhere = (name: string) => join(file.dir, name);

const CORPUS = [
  `INSERT INTO t VALUES (2, 'x')`,
  `INSERT INTO t VALUES (2, 'x') RETURNING id`,
  `UPDATE t SET v = 'changed' RETURNING v`,
  `DELETE FROM t RETURNING id`,
  `REPLACE INTO t VALUES (1, 'replaced') RETURNING v`,
  `INSERT INTO t SELECT id + 10, v FROM t RETURNING id`,
  `CREATE TABLE created (a)`,
  `CREATE TEMP TABLE created (a)`,
  `DROP TABLE t`,
  `ALTER TABLE t RENAME TO renamed`,
  `CREATE INDEX t_v ON t (v)`,
  `VACUUM`,
  `VACUUM INTO '${elsewhere('copy.db')}'`,
  `VACUUM main INTO '${elsewhere('copy2.db')}'`,
  `ATTACH DATABASE '${elsewhere('attached.db')}' AS other`,
  `ATTACH DATABASE ':memory:' AS mem`,
  `REINDEX`,
  `ANALYZE`,
  `BEGIN EXCLUSIVE`,
  `PRAGMA query_only = OFF`,
  `PRAGMA journal_mode = WAL`,
  `PRAGMA locking_mode = EXCLUSIVE`,
  `PRAGMA writable_schema = ON`,
  `PRAGMA user_version = 7`,
  `PRAGMA temp_store_directory = '${file.dir}'`,
  `SELECT * FROM pragma_database_list`,
  `SELECT load_extension('${elsewhere('evil.so')}')`,
  `SELECT writefile('${elsewhere('written.txt')}', 'x')`,
  `SELECT * FROM sqlite_dbpage`,
  `SELECT 1; INSERT INTO t VALUES (3, 'y')`,
  `WITH w AS (SELECT 1) INSERT INTO t SELECT 4, 'z' FROM w RETURNING id`,
];

/**
 * What SQLite runs when nothing checks it, and why that writes nothing: a read of the
 * database list, the first of two statements (a library runs no more than one), and a
 * locking mode for a connection that is closed when its statement ends.
 */
const ENGINE_RUNS = new Set([`SELECT * FROM pragma_database_list`, `SELECT 1; INSERT INTO t VALUES (3, 'y')`, `PRAGMA locking_mode = EXCLUSIVE`]);

function fingerprint(): { hash: string; files: string[] } {
  return { hash: createHash('sha256').update(readFileSync(file.file)).digest('hex'), files: readdirSync(file.dir).sort() };
}

let under: DriverUnderTest;
const exports = new ContractExports();
let before: { hash: string; files: string[] };

beforeAll(async () => {
  under = sqliteUnderTest(file);
  await exports.open();
  await under.admin(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`);
  await under.admin(`INSERT INTO t VALUES (1, 'original')`);
  before = fingerprint();
});

afterAll(async () => {
  exports.close();
  await under.close();
});

describe('the read-only boundary on a SQLite file', () => {
  it.each(CORPUS)('refuses %s through the whole path, and the engine refuses it without the check', async (sql) => {
    const checked = await failureOf(exports.run(under, sql));
    expect(['READ_ONLY_VIOLATION', 'VALIDATION_ERROR'], checked.message).toContain(checked.code);
    const unchecked = await exports.runUnchecked(under, { sql, kind: 'select' }).then(
      (run) => ({ ran: run.rows }),
      (error: unknown) => ({ error }),
    );
    if ('ran' in unchecked) expect(ENGINE_RUNS.has(sql), `the engine ran ${sql}`).toBe(true);
  });

  it('leaves the file byte for byte as it was, and nothing created beside it or where the corpus wrote', () => {
    expect(fingerprint()).toEqual(before);
    for (const name of ['copy.db', 'copy2.db', 'attached.db', 'written.txt']) expect(existsSync(elsewhere(name)), name).toBe(false);
  });
});
