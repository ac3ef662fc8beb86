/**
 * The read-only boundary of a files datasource, proven on the engine: every
 * statement below is run by the export half as if the statement check had
 * passed it, and DuckDB itself refuses it (allowed_directories,
 * enable_external_access = false, lock_configuration, and the statement-type
 * check of the run), with an answer that names no path outside the folder
 * and not the folder's own absolute path; nothing is written anywhere. The
 * check refuses what it can see first.
 */
import { readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceError } from '../../../src/errors.ts';
import { ContractExports, failureOf } from '../contract-export.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';
import { TempFolder } from './temp-folder.ts';

const folder = new TempFolder();
const exports = new ContractExports();
let under: DriverUnderTest;

/** Every file under the temporary root, the folder's parent: what a write anywhere near would change. */
function everyFile(dir = folder.root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? everyFile(join(dir, e.name)) : [join(dir, e.name)])).sort();
}

beforeAll(async () => {
  await exports.open();
  await folder.write('numbers.parquet', 'SELECT range AS n FROM range(3)');
  writeFileSync(join(folder.root, 'outside.csv'), 'secret\n42\n');
  await folder.write('../outside.parquet', 'SELECT 42 AS secret');
  symlinkSync(join(folder.root, 'outside.csv'), folder.path('link.csv'));
  under = folder.open();
});

afterAll(async () => {
  exports.close();
  await folder.close();
});

/** Statements that would reach outside the folder, write, or change the engine, as the engine sees them. */
function hostile(): { sql: string; checkRefuses: boolean }[] {
  const { root, dir } = folder;
  return [
    { sql: `SELECT * FROM read_csv('/etc/passwd')`, checkRefuses: false },
    { sql: `SELECT * FROM read_csv('/proc/self/environ')`, checkRefuses: false },
    { sql: `SELECT * FROM read_parquet('${dir}/../outside.parquet')`, checkRefuses: false },
    { sql: `SELECT * FROM read_parquet('../outside.parquet')`, checkRefuses: false },
    { sql: `SELECT * FROM read_csv('${dir}/link.csv')`, checkRefuses: false },
    { sql: `SELECT * FROM read_csv('~/.bashrc')`, checkRefuses: false },
    { sql: `SELECT * FROM read_csv('http://127.0.0.1:1/x.csv')`, checkRefuses: false },
    { sql: `SELECT * FROM glob('/etc/*')`, checkRefuses: false },
    { sql: `SELECT * FROM read_text('/etc/hostname')`, checkRefuses: false },
    { sql: `SELECT * FROM read_blob('${root}/outside.csv')`, checkRefuses: false },
    { sql: `SELECT getenv('HOME')`, checkRefuses: true },
    { sql: `SET allowed_directories = ['/']`, checkRefuses: true },
    { sql: `SET enable_external_access = true`, checkRefuses: true },
    { sql: `RESET lock_configuration`, checkRefuses: true },
    { sql: `ATTACH '${root}/other.db' AS other`, checkRefuses: true },
    { sql: `ATTACH ':memory:' AS scratch`, checkRefuses: true },
    { sql: `COPY (SELECT 1) TO '${root}/written.csv'`, checkRefuses: true },
    { sql: `COPY (SELECT 1) TO '${dir}/written.csv'`, checkRefuses: true },
    { sql: `EXPORT DATABASE '${dir}/exported'`, checkRefuses: true },
    { sql: `INSTALL httpfs`, checkRefuses: true },
    { sql: `LOAD httpfs`, checkRefuses: true },
    { sql: `LOAD '${root}/evil.duckdb_extension'`, checkRefuses: true },
    { sql: `CREATE TABLE made AS SELECT 1 AS a`, checkRefuses: true },
    { sql: `CREATE VIEW main.numbers2 AS SELECT 1 AS a`, checkRefuses: true },
    { sql: `DROP VIEW main.numbers`, checkRefuses: true },
    { sql: `PRAGMA enable_profiling`, checkRefuses: true },
  ];
}

/** No path outside the folder, nor the folder's own absolute path, in what a caller is told. */
function expectNoPaths(error: SluiceError): void {
  const told = `${error.message} ${JSON.stringify(error.details ?? {})}`;
  expect(told).not.toContain(folder.root);
  for (const secret of ['/etc', '/proc', 'passwd', 'hostname', '.bashrc']) expect(told).not.toContain(secret);
}

describe('the engine is the boundary', () => {
  it.each(hostile())('refuses $sql on the engine, naming no path', async ({ sql }) => {
    const before = everyFile();
    const error = await failureOf(exports.runUnchecked(under, { sql, kind: 'select' }));
    expect(['READ_ONLY_VIOLATION', 'SQL_ERROR'], error.message).toContain(error.code);
    expectNoPaths(error);
    expect(everyFile()).toEqual(before);
    // The engine is still locked and still serves the folder.
    const next = await exports.run(under, 'SELECT n FROM main.numbers ORDER BY n');
    expect(next.rows).toEqual([['0'], ['1'], ['2']]);
  });

  it.each(hostile().filter((h) => h.checkRefuses))('the statement check refuses $sql first', async ({ sql }) => {
    const error = await failureOf(under.driver.checkStatement(sql));
    expect(error.code, error.message).toBe('READ_ONLY_VIOLATION');
    expectNoPaths(error);
  });

  it('answers a read of a file outside the folder with READ_ONLY_VIOLATION, in a sentence of its own', async () => {
    const error = await failureOf(exports.run(under, `SELECT * FROM read_csv('/etc/passwd')`));
    expect(error.code).toBe('READ_ONLY_VIOLATION');
    expect(error.message).toMatch(/outside the datasource.s folder/);
  });

  it('names a missing file of the folder relative to it, never by its absolute path', async () => {
    const error = await failureOf(exports.run(under, `SELECT * FROM read_csv('${folder.dir}/missing.csv')`));
    expect(error.code).toBe('SQL_ERROR');
    expect(error.message).toContain('missing.csv');
    expectNoPaths(error);
  });

  it('serves no table for a symbolic link that leads outside, and says so in the log', async () => {
    const { tables } = await under.driver.listTables({ limit: 100 });
    expect(tables.map((t) => `${t.schema}.${t.name}`)).toEqual(['main.numbers']);
    expect(folder.logged.some((line) => line.includes('link.csv') && !line.includes(folder.root))).toBe(true);
  });

  it('reads the settings it runs under as locked, whatever a query tried', async () => {
    const error = await failureOf(exports.runUnchecked(under, { sql: `SET lock_configuration = false`, kind: 'select' }));
    expect(error.code).toBe('READ_ONLY_VIOLATION');
    const read = await failureOf(exports.run(under, `SELECT * FROM read_parquet('${folder.root}/outside.parquet')`));
    expect(read.code).toBe('READ_ONLY_VIOLATION');
  });
});
