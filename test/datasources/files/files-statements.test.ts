/**
 * What the files driver says about statements and values beyond the
 * contract suite: DuckDB's parser positions in characters, chat labels
 * and a statement's own LIMIT from DuckDB's parse tree, a value with no
 * exact text failing the query naming its column, DuckDB's errors mapped
 * without paths, the kind and dialect by URL, and a long cross join that a
 * cancel stops on the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindOf, dialectOf } from '../../../src/datasources/drivers.ts';
import { duckdbError } from '../../../src/datasources/files/duckdb-errors.ts';
import { folderOf } from '../../../src/datasources/files/folder-url.ts';
import { SluiceError } from '../../../src/errors.ts';
import { ContractExports, failureOf } from '../contract-export.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';
import type { FilesExportDriver } from '../../../src/datasources/files/export/files-export-driver.ts';
import { TempFolder } from './temp-folder.ts';

const folder = new TempFolder();
const exports = new ContractExports();
let under: DriverUnderTest & { exports: FilesExportDriver };

beforeAll(async () => {
  await exports.open();
  await folder.write('t.parquet', 'SELECT range AS id FROM range(10)');
  under = folder.open();
});

afterAll(async () => {
  exports.close();
  await folder.close();
});

describe('statements', () => {
  it('gives a syntax error’s position in characters, counting from 1', async () => {
    const error = await failureOf(under.driver.checkStatement(`SELECT 'é😀' AS x FRM t`));
    expect(error.code).toBe('SQL_ERROR');
    // DuckDB points at FRM; é is 2 bytes and 😀 4 (and two UTF-16 units), each one character.
    expect(error.details).toMatchObject({ position: 18 });
    expect(error.message).toContain('line 1, column 18');
  });

  it('labels statements by DuckDB’s parse: select, dml, ddl or other', async () => {
    expect(await under.driver.classify('SELECT * FROM t')).toBe('select');
    expect(await under.driver.classify('FROM t')).toBe('select');
    expect(await under.driver.classify('CREATE TABLE x (a INTEGER)')).toBe('ddl');
    expect(await under.driver.classify('DROP VIEW IF EXISTS x')).toBe('ddl');
    // DuckDB names a statement's type only once it binds, and DML binds only against its table: unknown here.
    expect(await under.driver.classify(`COPY (SELECT 1) TO 'x.csv'`)).toBe('other');
    expect(await under.driver.classify('SELECT 1; SELECT 2')).toBe('other');
    expect(await under.driver.classify('not sql at all')).toBe('other');
  });

  it('reads a statement’s own top-level LIMIT when it is a number', async () => {
    expect(await under.driver.ownLimit('SELECT * FROM t LIMIT 5')).toBe(5);
    expect(await under.driver.ownLimit('SELECT * FROM (SELECT * FROM t LIMIT 3) s')).toBeNull();
    expect(await under.driver.ownLimit('SELECT * FROM t LIMIT $1')).toBeNull();
    expect(await under.driver.ownLimit('SELECT * FROM t')).toBeNull();
  });

  it('refuses named parameters, an empty statement and a NUL', async () => {
    expect((await failureOf(under.driver.checkStatement('SELECT $name'))).code).toBe('VALIDATION_ERROR');
    expect((await failureOf(under.driver.checkStatement(' -- nothing\n;'))).code).toBe('VALIDATION_ERROR');
    expect((await failureOf(under.driver.checkStatement('SELECT 1\0; DROP VIEW t'))).code).toBe('VALIDATION_ERROR');
  });
});

describe('values', () => {
  it('fails a nanosecond timestamp it cannot keep exactly, naming the column, and keeps one it can', async () => {
    const error = await failureOf(exports.run(under, `SELECT TIMESTAMP_NS '2026-01-01 00:00:00.123456789' AS "when"`));
    expect(error.code).toBe('SQL_ERROR');
    expect(error.message).toContain('"when"');
    const exact = await exports.run(under, `SELECT TIMESTAMP_NS '2026-01-01 00:00:00.123456' AS t, TIMESTAMP_MS '2026-01-01 00:00:01.5' AS m, TIMESTAMP_S '1969-12-31 23:59:59' AS s`);
    expect(exact.rows).toEqual([['2026-01-01T00:00:00.123456', '2026-01-01T00:00:01.500000', '1969-12-31T23:59:59.000000']]);
  });

  it('gives a column that takes its type from a parameter the type of the value bound to it', async () => {
    const run = await exports.run(under, 'SELECT $1 AS label, id + $2 AS later, $3 AS flag FROM main.t WHERE id < $4 ORDER BY id', { params: ['x', 10, true, 2] });
    expect(run.columns.map((c) => c.name)).toEqual(['label', 'later', 'flag']);
    expect(run.columns.map((c) => c.type)).toEqual(['varchar', 'bigint', 'boolean']);
    expect(run.rows).toEqual([
      ['x', '10', true],
      ['x', '11', true],
    ]);
    // DuckDB names such a statement's columns as a subquery's: a name it repeats gets a suffix.
    const repeated = await exports.run(under, 'SELECT 1 AS a, $1 AS a', { params: ['y'] });
    expect(repeated.columns.map((c) => c.name)).toEqual(['a', 'a_1']);
    expect(repeated.rows).toEqual([[1, 'y']]);
    // With nothing bound to give it a type, a clear error names the parameters, not the engine's internals.
    const unbound = await failureOf(exports.run(under, 'SELECT $1 AS label'));
    expect(unbound.code).toBe('VALIDATION_ERROR');
  });

  it('writes time zones, bits, enums and unions as DuckDB’s text', async () => {
    const run = await exports.run(under, `SELECT '12:00:00+02'::TIMETZ AS tz, '101'::BIT AS b, 'x'::ENUM('x', 'y') AS e, union_value(n := 2) AS u, -0.0::DOUBLE AS z`);
    expect(run.columns.map((c) => c.type)).toEqual(['time with time zone', 'bit', `enum('x', 'y')`, 'union("n" integer)', 'double']);
    expect(run.rows).toEqual([['12:00:00+02', '101', 'x', '2', -0]]);
  });
});

describe('errors', () => {
  it('maps DuckDB’s errors by their kind, without paths, and leaves anything else', () => {
    const io = duckdbError(new Error('IO Error: No files found that match the pattern "/srv/data/sales/x.csv"'), '/srv/data');
    expect(io?.code).toBe('SQL_ERROR');
    expect(io?.message).toContain('"sales/x.csv"');
    expect(io?.message).not.toContain('/srv');
    const outside = duckdbError(new Error('IO Error: Cannot open file "/home/user/secret.csv": No such file'), '/srv/data');
    expect(outside?.message).not.toContain('/home');
    const permission = duckdbError(new Error('Permission Error: Cannot access file "/etc/shadow" - file system operations are disabled by configuration'));
    expect(permission?.code).toBe('READ_ONLY_VIOLATION');
    expect(permission?.message).not.toContain('shadow');
    expect(duckdbError(new Error('INTERRUPT Error: Interrupted!'))?.code).toBe('QUERY_CANCELLED');
    expect(duckdbError(new Error('Binder Error: Referenced column "x" not found\n\nLINE 1: SELECT x\n               ^'))?.message).toBe('Referenced column "x" not found');
    expect(duckdbError(new Error('a fault of our own'))).toBeUndefined();
    expect(duckdbError(new SluiceError('QUERY_CANCELLED', 'x'))).toBeUndefined();
  });

  it('takes file:///absolute/dir as its URL and refuses anything else', () => {
    expect(kindOf('file:///srv/data')).toBe('files');
    expect(dialectOf('files').name).toBe('duckdb');
    expect(folderOf('file:///srv/data/')).toBe('/srv/data');
    expect(folderOf('file:///srv/my%20data')).toBe('/srv/my data');
    for (const bad of ['file://host/srv/data', 'file:///', 'file:///srv/data?x=1']) {
      expect(() => folderOf(bad), bad).toThrow(SluiceError);
    }
  });
});

describe('stopping', () => {
  // No join condition DuckDB could hash: every pair is made and tested, minutes of work on one thread.
  const CROSS_JOIN = 'SELECT count(*) AS c FROM range(300000) AS a, range(300000) AS b WHERE (a.range * b.range) % 7 = 9';

  it('stops a long cross join on the engine with a cancel, and serves the next query', async () => {
    let stop: ((reason: 'cancel') => void) | undefined;
    const outcome = failureOf(exports.run(under, CROSS_JOIN, { onStopper: (s) => (stop = s) }));
    while (!under.exports.running().includes(CROSS_JOIN)) await new Promise((r) => setTimeout(r, 20));
    stop!('cancel');
    const error = await outcome;
    expect(error.code).toBe('QUERY_CANCELLED');
    // The engine has given the statement up: its stream ended before the export did.
    expect(under.exports.running()).toEqual([]);
    expect((await exports.run(under, 'SELECT count(*) AS n FROM main.t')).rows).toEqual([['10']]);
  });

  it('stops it when the cancel comes before the statement began on the engine', async () => {
    // Stopped as soon as the export hands out its stopper, before its stream has started the statement: DuckDB clears an
    // interrupt when a statement begins, so the cancel must not rest on the engine's interrupt alone.
    const error = await failureOf(exports.run(under, CROSS_JOIN, { onStopper: (stop) => stop('cancel') }));
    expect(error.code).toBe('QUERY_CANCELLED');
    expect(under.exports.running()).toEqual([]);
    expect((await exports.run(under, 'SELECT count(*) AS n FROM main.t')).rows).toEqual([['10']]);
  }, 20_000);

  it('stops it at the duration cap with QUERY_TIMEOUT', async () => {
    const error = await failureOf(exports.run(under, CROSS_JOIN, { limits: { maxDurationMs: 300 } }));
    expect(error.code).toBe('QUERY_TIMEOUT');
    expect(under.exports.running()).toEqual([]);
  });
});
