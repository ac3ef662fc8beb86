/**
 * The connection a files engine lends its exports (folder-engine.ts): made
 * before the lock with a streaming buffer, so it is kept and lent again, one
 * export at a time. Whatever an export left on it (a cancel mid-stream, a
 * statement that failed in its transaction) must not reach the next one, an
 * export that finds it lent gets a connection of its own, and the lock holds
 * on it as on every other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractExports, failureOf } from '../contract-export.ts';
import { TempFolder } from './temp-folder.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';

const folder = new TempFolder();
const exports = new ContractExports();
let under: DriverUnderTest;

/** DuckDB's own text for the lent connection's buffer of 8 MB; every other connection has DuckDB's default. */
const LENT_BUFFER = '7.6 MiB';

/** The folder's numbers, with the buffer of the connection the export ran on. */
const NUMBERS = `SELECT n, current_setting('streaming_buffer_size') AS buffer FROM main.numbers ORDER BY n`;

/** A statement that runs for tens of seconds unless stopped, one row at the end. */
const LONG = `SELECT sum(a.range * b.range) AS slept FROM range(200000) AS a, range(200000) AS b`;

beforeAll(async () => {
  await exports.open();
  await folder.write('numbers.parquet', 'SELECT range AS n FROM range(3)');
  under = folder.open();
});

afterAll(async () => {
  exports.close();
  await folder.close();
});

async function numbers(): Promise<unknown[][]> {
  return (await exports.runUnchecked(under, { sql: NUMBERS, kind: 'select' })).rows;
}

describe('the connection a files engine lends its exports', () => {
  it('runs exports with its streaming buffer, on an engine of two threads, under the lock', async () => {
    expect(await numbers()).toEqual([
      ['0', LENT_BUFFER],
      ['1', LENT_BUFFER],
      ['2', LENT_BUFFER],
    ]);
    const settings = await exports.runUnchecked(under, {
      sql: `SELECT current_setting('threads') AS threads, current_setting('lock_configuration') AS locked, current_setting('enable_external_access') AS external`,
      kind: 'select',
    });
    expect(settings.rows).toEqual([['2', true, false]]);
  });

  it('is clean for the next export after one cancelled mid-statement', async () => {
    let stop: ((reason: 'cancel') => void) | undefined;
    const cancelled = failureOf(exports.runUnchecked(under, { sql: LONG, kind: 'select' }, { onStopper: (stopper) => (stop = stopper) }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop!('cancel');
    expect((await cancelled).code).toBe('QUERY_CANCELLED');
    expect(await numbers()).toEqual([
      ['0', LENT_BUFFER],
      ['1', LENT_BUFFER],
      ['2', LENT_BUFFER],
    ]);
  });

  it('is clean for the next export after a statement that failed inside its transaction', async () => {
    const failed = await failureOf(exports.runUnchecked(under, { sql: `SELECT CAST('not a number' || n AS INTEGER) AS x FROM main.numbers`, kind: 'select' }));
    expect(failed.code).toBe('SQL_ERROR');
    // Bound parameters of the failed export do not linger either: this one binds its own.
    const next = await exports.runUnchecked(under, { sql: `SELECT n + CAST($1 AS BIGINT) AS m, current_setting('streaming_buffer_size') AS buffer FROM main.numbers ORDER BY n`, kind: 'select' }, { params: [10] });
    expect(next.rows).toEqual([
      ['10', LENT_BUFFER],
      ['11', LENT_BUFFER],
      ['12', LENT_BUFFER],
    ]);
  });

  it('gives an export that finds it lent a connection of its own, and both answer in full', async () => {
    let stop: ((reason: 'cancel') => void) | undefined;
    const holding = failureOf(exports.runUnchecked(under, { sql: LONG, kind: 'select' }, { onStopper: (stopper) => (stop = stopper) }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const meanwhile = await numbers();
    expect(meanwhile.map((row) => row[0])).toEqual(['0', '1', '2']);
    // Another connection of the same engine: DuckDB's default buffer, not the lent one's.
    expect(meanwhile.every((row) => row[1] !== LENT_BUFFER)).toBe(true);
    stop!('cancel');
    expect((await holding).code).toBe('QUERY_CANCELLED');
    // Given back on the cancel, the lent connection serves the next export again.
    expect((await numbers())[0]).toEqual(['0', LENT_BUFFER]);
  });
});
