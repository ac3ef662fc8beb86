/**
 * The windows a read worker keeps (row-windows.ts), on a real DuckDB over a
 * real Parquet file: bounded by their bytes, least recently used out first,
 * and rows that are exactly the window's.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckScratch, type DuckScratch } from '../helpers/duck-scratch.ts';
import { quoteLiteral, type PlannedColumn } from '../../src/columns/column-plan.ts';
import { windowSql } from '../../src/artifacts/read-sql.ts';
import { RowWindows } from '../../src/worker/row-windows.ts';
import type { WindowTask } from '../../src/worker/protocol.ts';
import { pageRows } from '../../src/artifacts/read-page.ts';

const COLUMNS: PlannedColumn[] = [
  { name: 'n', type: 'int8', storageName: 'n', storage: 'int8', duckType: 'BIGINT' },
  { name: 'h', type: 'text', storageName: 'h', storage: 'text', duckType: 'VARCHAR' },
];
const ROWS = 10_000;

let scratch: DuckScratch;
let file: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  scratch = await openDuckScratch('row-windows-');
  ({ duck } = scratch);
  file = scratch.path('part.parquet');
  await duck.run(`COPY (SELECT g::BIGINT AS n, md5(g::VARCHAR) AS h FROM range(${ROWS}) t(g)) TO ${quoteLiteral(file)} (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
});

afterAll(() => scratch.close());

/** Rows `from`-`to` of the window of 2,000 rows starting at `start`. */
function task(start: number, from: number, to: number): WindowTask {
  return { type: 'read-window', key: `part\u0000${start}`, sql: windowSql(COLUMNS, file, start, start + 2000), rowsSql: windowSql(COLUMNS, file, start + from, start + to), storages: ['int8', 'text'], from, to };
}

/** The connection, with the statements sent on it (run, runAndReadAll, prepare) counted; a prepared statement's own runs are not. */
function countingStatements(): { counted: DuckDBConnection; statements: () => number } {
  let statements = 0;
  const counted = new Proxy(duck, {
    get(target, name) {
      const member = Reflect.get(target, name, target) as unknown;
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        if (['run', 'runAndReadAll', 'prepare'].includes(String(name))) statements += 1;
        return (member as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { counted, statements: () => statements };
}

// A window of 2,000 rows: 2 values of 16 bytes and 32 bytes of md5 text a row, 128,000 bytes.
const WINDOW = 2000 * (2 * 16 + 32);

describe('RowWindows', () => {
  it('answers the rows asked for, reading the window once', async () => {
    const windows = new RowWindows(4 * WINDOW);
    const first = await windows.rows(duck, task(4000, 10, 13));
    expect(first).toMatchObject({ read: true, kept: true });
    expect(pageRows(first.rowsJson)).toEqual([['4010', expect.any(String)], ['4011', expect.any(String)], ['4012', expect.any(String)]]);
    const expected = await duck.runAndReadAll(`SELECT md5('4010')`);
    expect(pageRows(first.rowsJson)[0]![1]).toBe(expected.getRowsJS()[0]![0]);
    const again = await windows.rows(duck, task(4000, 1998, 2005));
    expect(again.read).toBe(false);
    expect(pageRows(again.rowsJson).map((r) => r[0])).toEqual(['5998', '5999']);
    expect(windows.held).toEqual({ windows: 1, bytes: WINDOW });
  });

  it('drops the least recently used window past its bound', async () => {
    const windows = new RowWindows(4 * WINDOW);
    for (const start of [0, 2000, 4000, 6000]) await windows.rows(duck, task(start, 0, 1));
    expect(windows.held).toEqual({ windows: 4, bytes: 4 * WINDOW });
    // The first is used again, so the second is the one a fifth window pushes out.
    expect((await windows.rows(duck, task(0, 5, 6))).read).toBe(false);
    await windows.rows(duck, task(8000, 0, 1));
    expect(windows.held).toEqual({ windows: 4, bytes: 4 * WINDOW });
    expect((await windows.rows(duck, task(0, 7, 8))).read).toBe(false);
    expect((await windows.rows(duck, task(2000, 7, 8))).read).toBe(true);
    expect((await windows.rows(duck, task(4000, 0, 1))).read).toBe(true);
  });

  it('keeps no more tables than its measure whatever its bound, dropping the least recently used', async () => {
    // A bound of 16 windows, a measure of 4: the tables live in DuckDB, under its memory limit.
    const windows = new RowWindows(16 * WINDOW, 4 * WINDOW);
    const tables = async () => Number((await duck.runAndReadAll("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'window_%'")).getRows()[0]![0]);
    const before = await tables();
    for (const start of [0, 2000, 4000, 6000, 8000]) expect(await windows.rows(duck, task(start, 0, 1))).toMatchObject({ read: true, kept: true });
    expect(windows.held).toEqual({ windows: 4, bytes: 4 * WINDOW });
    expect(await tables()).toBe(before + 4);
    expect((await windows.rows(duck, task(8000, 1, 2))).read).toBe(false);
    expect((await windows.rows(duck, task(0, 1, 2))).read).toBe(true);
    await windows.forget(duck, [0, 2000, 4000, 6000, 8000].map((start) => task(start, 0, 1).key));
    expect(await tables()).toBe(before);
  });

  it('keeps no window past a quarter of its bound, and forgets a window it is told to', async () => {
    const small = new RowWindows(2 * WINDOW);
    const unkept = await small.rows(duck, task(0, 0, 2));
    expect(unkept).toMatchObject({ read: true, kept: false });
    expect(pageRows(unkept.rowsJson)).toEqual([['0', expect.any(String)], ['1', expect.any(String)]]);
    expect(small.held.windows).toBe(0);
    const windows = new RowWindows(4 * WINDOW);
    await windows.rows(duck, task(0, 0, 1));
    await windows.forget(duck, ['part\u00000', 'unknown']);
    expect(windows.held).toEqual({ windows: 0, bytes: 0 });
    expect((await windows.rows(duck, task(0, 0, 1))).read).toBe(true);
  });

  it('answers the rows asked for when the window cannot be copied, and keeps nothing of it', async () => {
    const windows = new RowWindows(4 * WINDOW);
    const tables = async () => Number((await duck.runAndReadAll("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'window_%'")).getRows()[0]![0]);
    const before = await tables();
    // A copy that fails as one past DuckDB's memory limit would: the rows come from the statement of those rows alone.
    const failing = { ...task(0, 3, 5), sql: `SELECT no_such_column FROM read_parquet(${quoteLiteral(file)})` };
    const answered = await windows.rows(duck, failing);
    expect(answered).toMatchObject({ read: true, kept: false });
    expect(pageRows(answered.rowsJson)).toEqual([['3', expect.any(String)], ['4', expect.any(String)]]);
    expect(windows.held.windows).toBe(0);
    expect(await tables()).toBe(before);
  });

  describe('rowsOfMany', () => {
    const noLog = () => undefined;
    const numbers = (rowsJson: string[]) => pageRows(rowsJson).map((r) => r[0]);

    it('answers each task its own rows in order, reading each new window once, from one statement per shape', async () => {
      const windows = new RowWindows(8 * WINDOW);
      await windows.rows(duck, task(2000, 0, 1));
      const { counted, statements } = countingStatements();
      const tasks = [task(4000, 1990, 2000), task(2000, 5, 8), task(4000, 3, 5), task(6000, 0, 3), task(2000, 1999, 2000)];
      const answers = await windows.rowsOfMany(counted, tasks, noLog);
      expect(answers.map((a) => a.ok && numbers(a.value.rowsJson))).toEqual([
        ['5990', '5991', '5992', '5993', '5994', '5995', '5996', '5997', '5998', '5999'],
        ['2005', '2006', '2007'],
        ['4003', '4004'],
        ['6000', '6001', '6002'],
        ['3999'],
      ]);
      expect(answers.map((a) => a.ok && a.value.read)).toEqual([true, false, true, true, false]);
      expect(answers.every((a) => a.ok && a.value.kept)).toBe(true);
      // Two windows copied (a CREATE, a size and a prepare each) and one statement for all five tasks' rows.
      expect(statements()).toBe(2 * 3 + 1);
      expect(windows.held).toEqual({ windows: 3, bytes: 3 * WINDOW });
      const h = await duck.runAndReadAll(`SELECT md5('2006')`);
      expect(answers[1]!.ok && pageRows(answers[1]!.value.rowsJson)[1]![1]).toBe(h.getRowsJS()[0]![0]);
    });

    it('cuts windows of different columns by a statement each', async () => {
      const windows = new RowWindows(8 * WINDOW);
      const onlyText = { ...task(0, 0, 2), key: 'text-only', sql: `SELECT h AS c0, strlen(h)::DOUBLE AS text_bytes FROM read_parquet(${quoteLiteral(file)}, file_row_number = true) WHERE file_row_number < 2000`, storages: ['text' as const] };
      const { counted, statements } = countingStatements();
      const answers = await windows.rowsOfMany(counted, [task(0, 4, 6), onlyText, task(0, 0, 1), { ...onlyText, from: 3, to: 4 }], noLog);
      // Two windows (a CREATE, a size and a prepare each), and a cut for each shape's two tasks.
      expect(statements()).toBe(2 * 3 + 2);
      expect(answers.map((a) => a.ok && pageRows(a.value.rowsJson))).toEqual([
        [['4', expect.any(String)], ['5', expect.any(String)]],
        [[expect.stringMatching(/^[0-9a-f]{32}$/)], [expect.stringMatching(/^[0-9a-f]{32}$/)]],
        [['0', expect.any(String)]],
        [[expect.stringMatching(/^[0-9a-f]{32}$/)]],
      ]);
      const third = await duck.runAndReadAll(`SELECT md5('3')`);
      expect(answers[3]!.ok && pageRows(answers[3]!.value.rowsJson)[0]![0]).toBe(third.getRowsJS()[0]![0]);
    });

    it('answers a task whose window cannot be copied from its own rows, and fails only the task that cannot be read at all', async () => {
      const windows = new RowWindows(8 * WINDOW);
      const uncopied = { ...task(2000, 3, 5), sql: `SELECT no_such_column FROM read_parquet(${quoteLiteral(file)})` };
      const unreadable = { ...task(8000, 0, 1), key: 'broken', sql: 'SELECT no_such_column', rowsSql: 'SELECT no_such_column' };
      const logged: string[] = [];
      const answers = await windows.rowsOfMany(duck, [task(0, 1, 2), uncopied, unreadable, task(0, 7, 8)], (line) => logged.push(line));
      expect(answers[0]).toMatchObject({ ok: true, value: { read: true, kept: true } });
      expect(answers[0]!.ok && numbers(answers[0]!.value.rowsJson)).toEqual(['1']);
      expect(answers[1]).toMatchObject({ ok: true, value: { read: true, kept: false } });
      expect(answers[1]!.ok && numbers(answers[1]!.value.rowsJson)).toEqual(['2003', '2004']);
      expect(answers[2]).toEqual({ ok: false, error: { code: 'INTERNAL', message: expect.any(String) } });
      expect(answers[3]!.ok && numbers(answers[3]!.value.rowsJson)).toEqual(['7']);
      expect(logged).toHaveLength(1);
      expect(windows.held.windows).toBe(1);
    });

    it('reads new windows up to half its bound in one batch, and the rest one by one after it', async () => {
      const windows = new RowWindows(4 * WINDOW);
      const { counted, statements } = countingStatements();
      const starts = [0, 2000, 4000, 6000, 8000];
      const answers = await windows.rowsOfMany(counted, starts.map((start) => task(start, 10, 12)), noLog);
      expect(answers.map((a) => a.ok && numbers(a.value.rowsJson))).toEqual(starts.map((start) => [String(start + 10), String(start + 11)]));
      expect(answers.every((a) => a.ok && a.value.read && a.value.kept)).toBe(true);
      // Two windows (a CREATE, a size and a prepare each) and their one cut; then three windows of a task each,
      // the last of which drops the least recently used (a DROP).
      expect(statements()).toBe(2 * 3 + 1 + 3 * 3 + 1);
      expect(windows.held).toEqual({ windows: 4, bytes: 4 * WINDOW });
    });

    it('keeps or drops each window it read even when dropping another fails, and logs that one', async () => {
      const windowTables = async () => Number((await duck.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'window_%'`)).getRowsJS()[0]![0]);
      const before = await windowTables();
      let failed = false;
      const failingOnce = new Proxy(duck, {
        get(target, name) {
          const member = Reflect.get(target, name, target) as unknown;
          if (typeof member !== 'function') return member;
          return (...args: unknown[]) => {
            if (name === 'run' && !failed && String(args[0]).startsWith('DROP TABLE')) {
              failed = true;
              return Promise.reject(new Error('the drop failed'));
            }
            return (member as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      // Too wide to keep at this bound: each window the batch reads is dropped at its end.
      const windows = new RowWindows(2 * WINDOW);
      const logged: string[] = [];
      const answers = await windows.rowsOfMany(failingOnce, [task(0, 0, 1), task(2000, 0, 1), task(4000, 0, 1)], (line) => logged.push(line));
      expect(answers.map((a) => a.ok && numbers(a.value.rowsJson))).toEqual([['0'], ['2000'], ['4000']]);
      expect(logged).toEqual(['query worker: a window could not be kept or dropped:']);
      // Only the window whose drop failed is left; the other two were dropped after it.
      expect(await windowTables()).toBe(before + 1);
      expect(windows.held).toEqual({ windows: 0, bytes: 0 });
    });

    it('holds its bound again when the batch ends, and drops a window too wide to keep', async () => {
      const windows = new RowWindows(2 * WINDOW);
      const answers = await windows.rowsOfMany(duck, [task(0, 0, 1), task(2000, 0, 1), task(4000, 0, 1)], noLog);
      expect(answers.every((a) => a.ok && !a.value.kept)).toBe(true);
      expect(windows.held).toEqual({ windows: 0, bytes: 0 });
      const roomy = new RowWindows(4 * WINDOW);
      await roomy.rowsOfMany(duck, [task(0, 0, 1), task(2000, 0, 1), task(4000, 0, 1), task(6000, 0, 1), task(8000, 0, 1)], noLog);
      expect(roomy.held).toEqual({ windows: 4, bytes: 4 * WINDOW });
    });
  });
});
