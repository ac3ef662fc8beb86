/**
 * The MySQL/MariaDB driver against the server, beyond the contract suite:
 * zero dates answered with an error that names the column and says how to
 * read it, the dialect learned from the server, the start-up warnings, and
 * statements the semantic compiler builds in this dialect (parameters
 * numbered out of text order, a metric filter, week truncation, NULLs last,
 * a boolean, a hostile string value) running on the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/auth/principals.ts';
import { createMysqlExportDriver } from '../../../src/datasources/mysql/export/mysql-export-driver.ts';
import { openMysqlDriver } from '../../../src/datasources/mysql/mysql-driver.ts';
import { quietLogger } from '../../../src/logger.ts';
import { SemanticCatalog } from '../../../src/semantic/catalog.ts';
import { compileIntent } from '../../../src/semantic/compile.ts';
import { SemanticIntent } from '../../../src/semantic/intent.ts';
import { Explore } from '../../../src/semantic/model-schema.ts';
import { ContractExports, failureOf } from '../contract-export.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';
import { adminClient } from './admin-client.ts';
import { mysqlTitle, NO_MYSQL, urlWithDatabase } from './mysql-test-url.ts';

const D = 'sluice_engine';
const ADMIN: Principal = { id: 'admin', role: 'admin', roles: ['admin'], datasources: ['*'], auth: 'token' };

const SALES = [
  [1, "'north'", "'2024-01-01 10:00:00'", '10.00', 1],
  [2, "'north'", "'2024-01-03 11:00:00'", '20.00', 0],
  [3, "'south'", "'2024-01-08 09:00:00'", '5.00', 1],
  [4, "'south'", "'2024-01-14 23:00:00'", '7.50', 1],
  [5, 'NULL', "'2024-01-09 00:00:00'", '1.00', 1],
  [6, "'east'", "'2024-02-01 12:00:00'", '100.00', 1],
];

const catalog = new SemanticCatalog([
  Explore.parse({
    name: 'sales',
    sql: `SELECT * FROM ${D}.sales WHERE region IS NULL OR region <> {{excluded}}`,
    parameters: [{ name: 'excluded', type: 'string' }],
    dimensions: [{ name: 'region', type: 'string' }, { name: 'sold_at', type: 'timestamp', timeGrains: ['week'] }, { name: 'paid', type: 'boolean' }],
    metrics: [{ name: 'revenue', type: 'sum', sql: 'amount' }, { name: 'orders', type: 'count' }],
  }),
]);

describe.skipIf(NO_MYSQL)(mysqlTitle('the MySQL/MariaDB driver on the engine'), () => {
  const admin = adminClient();
  const url = urlWithDatabase(D);
  const exports = new ContractExports();
  let under: DriverUnderTest;

  beforeAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${D}`);
    await admin.query(`CREATE DATABASE ${D}`);
    await admin.query(`CREATE TABLE ${D}.sales (id INT PRIMARY KEY, region VARCHAR(10), sold_at DATETIME(6), amount DECIMAL(12,2), paid TINYINT(1))`);
    await admin.query(`INSERT INTO ${D}.sales VALUES ${SALES.map((r) => `(${r.join(', ')})`).join(', ')}`);
    // Zero dates exist only where the sql_mode lets them in.
    await admin.query(`SET SESSION sql_mode = ''`);
    await admin.query(`CREATE TABLE ${D}.zero (id INT PRIMARY KEY, d DATE, dt DATETIME)`);
    await admin.query(`INSERT INTO ${D}.zero VALUES (1, '2024-01-01', '2024-01-01 00:00:00'), (2, '0000-00-00', '0000-00-00 00:00:00'), (3, '2024-00-10', '2024-05-00 10:00:00')`);
    await exports.open();
    const driver = openMysqlDriver({ id: 'engine', url }, quietLogger);
    under = { driver, exports: createMysqlExportDriver(), url, admin: (sql) => admin.query(sql), engineError: async () => undefined, close: async () => undefined };
  });

  afterAll(async () => {
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${D}`);
    } finally {
      exports.close();
      await Promise.all([under.driver.close(), under.exports.close(), admin.end()]);
    }
  });

  it('speaks the dialect the URL names until the server says what it is', async () => {
    expect(under.driver.dialect.name).toBe('mysql');
    await under.driver.health();
    const [version] = await admin.query('SELECT VERSION() AS v');
    expect(under.driver.dialect.name).toBe(String(version!.v).includes('MariaDB') ? 'mariadb' : 'mysql');
  });

  it('sets the server\'s own statement time limit just behind the duration cap, in the session the statement runs in', async () => {
    const [version] = await admin.query('SELECT VERSION() AS v');
    const mariadb = String(version!.v).includes('MariaDB');
    // The statement reads the limit its own session runs under: the server stops it there even if Sluice's timer never fires.
    const variable = mariadb ? '@@SESSION.max_statement_time' : '@@SESSION.max_execution_time';
    for (const maxDurationMs of [5_000, 61_500]) {
      const run = await exports.runUnchecked(under, { sql: `SELECT ${variable} AS t`, kind: 'select' }, { limits: { maxDurationMs } });
      const limit = Number(run.rows[0]![0]);
      expect(mariadb ? limit * 1000 : limit).toBe(maxDurationMs + 2_000);
    }
  });

  it('fails a zero date naming the column and how to read it, and reads it as text when asked', async () => {
    for (const [column, value] of [['d', '0000-00-00'], ['dt', '0000-00-00 00:00:00']]) {
      const error = await failureOf(exports.run(under, `SELECT id, ${column} FROM ${D}.zero ORDER BY id`));
      expect(error.code).toBe('SQL_ERROR');
      expect(error.details).toMatchObject({ column, reason: 'ZERO_DATE' });
      expect(error.message).toContain(value);
      expect(error.message).toContain(`CAST(\`${column}\` AS CHAR)`);
    }
    const month = await failureOf(exports.run(under, `SELECT d FROM ${D}.zero WHERE id = 3`));
    expect(month.details).toMatchObject({ column: 'd', reason: 'ZERO_DATE' });
    const text = await exports.run(under, `SELECT CAST(d AS CHAR) AS d, CAST(dt AS CHAR) AS dt FROM ${D}.zero ORDER BY id`);
    expect(text.rows).toEqual([['2024-01-01', '2024-01-01 00:00:00'], ['0000-00-00', '0000-00-00 00:00:00'], ['2024-00-10', '2024-05-00 10:00:00']]);
    const nulls = await exports.run(under, `SELECT NULLIF(d, '0000-00-00') AS d, NULLIF(dt, '0000-00-00') AS dt FROM ${D}.zero WHERE id <= 2 ORDER BY id`);
    expect(nulls.rows).toEqual([['2024-01-01', '2024-01-01T00:00:00.000000'], [null, null]]);
  });

  it('runs what the semantic compiler builds: parameters bound by number, a metric filter, weeks from Monday, NULLs last', async () => {
    const run = async (intent: unknown) => {
      const compiled = compileIntent(catalog, () => under.driver.dialect, ADMIN, SemanticIntent.parse(intent));
      const result = await exports.run(under, compiled.sql, { params: compiled.params });
      return result.rows.map((row) => row.map((v) => (v === null ? null : String(v))));
    };
    // Bound in the order filters come (HAVING's first), but written FROM, WHERE, HAVING: only numbered placeholders bind these right.
    const weeks = await run({
      type: 'metric',
      parameters: { excluded: 'east' },
      query: {
        explore: 'sales',
        dimensions: ['sales.sold_at_week'],
        metrics: ['sales.revenue', 'sales.orders'],
        filters: [{ field: 'sales.revenue', op: 'gt', value: 1 }, { field: 'sales.region', op: 'contains', value: 'th' }],
        sorts: [{ field: 'sales.sold_at_week', direction: 'desc' }],
      },
    });
    expect(weeks).toEqual([['2024-01-08T00:00:00.000000', '12.50', '2'], ['2024-01-01T00:00:00.000000', '30.00', '2']]);
    const regions = await run({
      type: 'metric',
      parameters: { excluded: "x' OR '1'='1" },
      query: { explore: 'sales', dimensions: ['sales.region'], metrics: ['sales.orders'], filters: [{ field: 'sales.paid', op: 'eq', value: true }], sorts: [{ field: 'sales.region', direction: 'asc' }] },
    });
    expect(regions).toEqual([['east', '1'], ['north', '1'], ['south', '2'], [null, '1']]);
  });

  it('answers a session lost mid-statement with a retryable DATASOURCE_UNAVAILABLE, and the next export opens another', async () => {
    const marker = `sluice_engine_lost_${Date.now()}`;
    const outcome = failureOf(exports.run(under, `SELECT SLEEP(30) AS slept, '${marker}' AS marker`));
    const find = `SELECT ID AS id FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO LIKE '%${marker}%'`;
    let running: Record<string, unknown>[] = [];
    for (let tries = 0; running.length === 0 && tries < 200; tries++) {
      running = await admin.query(find);
      if (running.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(running).toHaveLength(1);
    await admin.query(`KILL CONNECTION ${Number(running[0]!.id)}`);
    const error = await outcome;
    expect(error).toMatchObject({ code: 'DATASOURCE_UNAVAILABLE', status: 503 });
    expect(error.details).toMatchObject({ retryable: true });
    const next = await exports.run(under, `SELECT COUNT(*) AS n FROM ${D}.sales`);
    expect(next.rows).toEqual([['6']]);
  });

  it('warns at start-up about a user with more than SELECT, and about a server not reachable yet', async () => {
    const [warning] = await under.driver.startupWarnings();
    expect(warning).toMatch(/privileges beyond reading \(.*ALL PRIVILEGES/);
    const lost = openMysqlDriver({ id: 'lost', url: 'mysql://root:secret@127.0.0.1:1/db' }, quietLogger);
    try {
      const [unreachable] = await lost.startupWarnings();
      expect(unreachable).toMatch(/not reachable yet/);
      expect(unreachable).not.toContain('secret');
      const error = await failureOf(lost.health());
      expect(error).toMatchObject({ code: 'DATASOURCE_UNAVAILABLE', status: 503 });
    } finally {
      await lost.close();
    }
  });
});
