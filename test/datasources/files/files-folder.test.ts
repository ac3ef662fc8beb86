/**
 * How a folder becomes tables, and how the tables follow the folder while
 * the server runs: top-level files in `main`, one subfolder down in the
 * subfolder's schema, deeper files and clashing names skipped with a log
 * line naming them relative to the folder, names kept character for
 * character; files added, changed and removed seen by the next listing or
 * query without a restart; a missing folder answered with
 * DATASOURCE_UNAVAILABLE from both halves.
 */
import { renameSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractExports, failureOf } from '../contract-export.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';
import { TempFolder } from './temp-folder.ts';

const folder = new TempFolder();
const exports = new ContractExports();
let under: DriverUnderTest;

const ODD_NAMES = ['my table.v2', 'it\'s "quoted"', '日本語 ✓'];

beforeAll(async () => {
  await exports.open();
  await folder.write('orders.parquet', 'SELECT range AS id, range * 1.5 AS total FROM range(5)');
  await folder.write('sales/q1.csv', `SELECT 'north' AS region, 10 AS amount`);
  await folder.write('sales/deep/hidden.csv', 'SELECT 1 AS x');
  await folder.write('clash.csv', 'SELECT 1 AS a');
  await folder.write('clash.parquet', 'SELECT 2 AS a');
  await folder.write('Cased.json', 'SELECT 1 AS a');
  await folder.write('cased.csv', 'SELECT 2 AS a');
  await folder.write(`${ODD_NAMES[0]}.csv`, `SELECT 'dots' AS v`);
  await folder.write(`${ODD_NAMES[1]}.parquet`, `SELECT 'quotes' AS v`);
  await folder.write(`${ODD_NAMES[2]}.jsonl`, `SELECT 'unicode' AS v`);
  await folder.write('east region/daily sales.parquet', `SELECT 'spaces' AS v`);
  under = folder.open();
});

afterAll(async () => {
  exports.close();
  await folder.close();
});

const names = async () => (await under.driver.listTables({ limit: 100 })).tables.map((t) => `${t.schema}.${t.name}`).sort();

describe('the folder layout', () => {
  it('serves top-level files in main and a subfolder’s files in its own schema, and nothing else', async () => {
    expect(await names()).toEqual(['east region.daily sales', 'main.it\'s "quoted"', 'main.my table.v2', 'main.orders', 'main.日本語 ✓', 'sales.q1'].sort());
  });

  it('logs each skipped file or folder once, relative to the folder', async () => {
    await under.driver.listTables({ limit: 1 });
    const lines = folder.logged.join('\n');
    expect(lines).toContain('sales/deep');
    expect(folder.logged.filter((l) => l.includes('clash.csv') && l.includes('clash.parquet'))).toHaveLength(1);
    expect(folder.logged.filter((l) => l.includes('Cased.json') && l.includes('cased.csv'))).toHaveLength(1);
    expect(lines).not.toContain(folder.root);
    const warnings = await under.driver.startupWarnings();
    expect(warnings.some((w) => /3 file\(s\) or folder\(s\) .* skipped/.test(w))).toBe(true);
    // A later scan of the changed folder does not log them again.
    await folder.write('another.csv', 'SELECT 1 AS a');
    await under.driver.listTables({ limit: 1 });
    expect(folder.logged.filter((l) => l.includes('sales/deep'))).toHaveLength(1);
    rmSync(folder.path('another.csv'));
    // The tests run as a user who may write the folder; least privilege says it should not.
    expect(warnings.some((w) => w.includes('may write its folder'))).toBe(true);
  });

  it('keeps every character of a name, quoted by the dialect', async () => {
    const d = under.driver.dialect;
    for (const [i, name] of ODD_NAMES.entries()) {
      const run = await exports.run(under, `SELECT v FROM ${d.quoteIdentifier('main')}.${d.quoteIdentifier(name)}`);
      expect(run.rows).toEqual([[['dots', 'quotes', 'unicode'][i]]]);
    }
    const spaced = await exports.run(under, `SELECT v FROM ${d.quoteRelation('"east region"."daily sales"')}`);
    expect(spaced.rows).toEqual([['spaces']]);
  });

  it('describes a file’s columns with DuckDB’s type names, and estimates rows from Parquet metadata only', async () => {
    const orders = await under.driver.describeTable('main', 'orders');
    expect(orders).toEqual({
      schema: 'main', name: 'orders', kind: 'table', estimatedRows: 5,
      columns: [{ name: 'id', type: 'bigint', nullable: true }, { name: 'total', type: 'decimal(21,1)', nullable: true }],
      primaryKey: [], foreignKeys: [],
    });
    expect((await under.driver.describeTable('sales', 'q1'))?.estimatedRows).toBeNull();
    expect(await under.driver.describeTable('sales', 'hidden')).toBeNull();
    expect(await under.driver.describeTable('main', 'clash')).toBeNull();
  });
});

describe('files that appear, change and go while the server runs', () => {
  it('serves a file added after start-up at the next listing and query', async () => {
    await folder.write('late.parquet', 'SELECT 7 AS seven');
    expect(await names()).toContain('main.late');
    const run = await exports.run(under, 'SELECT seven FROM main.late');
    expect(run.rows).toEqual([[7]]);
  });

  it('reads a file’s new columns once it is written again', async () => {
    await folder.write('changing.csv', 'SELECT 1 AS old_column');
    expect((await exports.run(under, 'SELECT old_column FROM main.changing')).rows).toEqual([['1']]);
    // Written next to it and renamed over it, as tools replace a file.
    await folder.write('changing.tmp/next.csv', `SELECT 'x' AS new_column, 2 AS other`);
    renameSync(folder.path('changing.tmp/next.csv'), folder.path('changing.csv'));
    rmSync(folder.path('changing.tmp'), { recursive: true });
    expect((await under.driver.describeTable('main', 'changing'))?.columns.map((c) => c.name)).toEqual(['new_column', 'other']);
    expect((await exports.run(under, 'SELECT new_column, other FROM main.changing')).rows).toEqual([['x', '2']]);
    const gone = await failureOf(exports.run(under, 'SELECT old_column FROM main.changing'));
    expect(gone.code).toBe('SQL_ERROR');
  });

  it('drops a removed file’s table, and a removed subfolder’s schema', async () => {
    await folder.write('brief/visit.parquet', 'SELECT 1 AS a');
    expect(await names()).toContain('brief.visit');
    rmSync(folder.path('brief'), { recursive: true });
    expect(await names()).not.toContain('brief.visit');
    const error = await failureOf(exports.run(under, 'SELECT * FROM brief.visit'));
    expect(error.code).toBe('SQL_ERROR');
  });

  it('finishes a query whose file is replaced while it streams with either file’s rows or a clear SQL_ERROR, and serves the next', async () => {
    const rows = 300_000;
    await folder.write('big.csv', `SELECT range AS n, 'old' AS tag FROM range(${rows})`);
    await folder.write('big.next/big.csv', `SELECT range AS n, 'new' AS tag FROM range(10)`);
    const running = exports.run(under, 'SELECT tag, count(*) AS c FROM main.big GROUP BY tag').then(
      (run) => ({ rows: run.rows }),
      (error: unknown) => ({ error }),
    );
    renameSync(folder.path('big.next/big.csv'), folder.path('big.csv'));
    const outcome = await running;
    if ('error' in outcome) {
      expect((outcome.error as { code?: string }).code).toBe('SQL_ERROR');
    } else {
      expect([[['old', String(rows)]], [['new', '10']]]).toContainEqual(outcome.rows);
    }
    expect((await exports.run(under, 'SELECT tag, count(*) AS c FROM main.big GROUP BY tag')).rows).toEqual([['new', '10']]);
  });
});

describe('a folder that is missing', () => {
  it('answers DATASOURCE_UNAVAILABLE, retryable, from both halves, naming no path', async () => {
    const gone = new TempFolder();
    const lost = gone.open();
    rmSync(gone.dir, { recursive: true });
    try {
      const health = await failureOf(lost.driver.health());
      expect(health.code).toBe('DATASOURCE_UNAVAILABLE');
      expect(health.status).toBe(503);
      expect(health.details).toMatchObject({ retryable: true });
      expect(health.message).not.toContain(gone.root);
      expect((await failureOf(lost.driver.listTables({ limit: 10 }))).code).toBe('DATASOURCE_UNAVAILABLE');
      const exported = await failureOf(exports.run(lost, 'SELECT 1'));
      expect(exported.code).toBe('DATASOURCE_UNAVAILABLE');
      expect(exported.message).not.toContain(gone.root);
      expect((await lost.driver.startupWarnings()).join('\n')).toMatch(/missing or cannot be read/);
    } finally {
      await gone.close();
    }
  });
});
