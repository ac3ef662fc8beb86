/**
 * Windows held as JavaScript arrays (column-window.ts), on a real DuckDB over
 * real Parquet: every kind they hold gives, value for value and NULL for
 * NULL, the very rows a window copied as a table gives (whose encoding
 * value-json-js.test.ts holds equal to DuckDB's); a statement whose lists are
 * not the window's rows in order, or whose text is past its bound, makes no
 * window; and the read worker's windows fall back to a table then.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckScratch, type DuckScratch } from '../helpers/duck-scratch.ts';
import { quoteLiteral, type PlannedColumn, type StorageKind } from '../../src/columns/column-plan.ts';
import { windowColumnsSql, windowSql } from '../../src/artifacts/read-sql.ts';
import { COLUMN_WINDOW_TEXT_BYTES } from '../../src/worker/protocol.ts';
import { valueEncoder } from '../../src/columns/value-json-js.ts';
import { rowJsonExpression } from '../../src/columns/value-encoding.ts';
import { cutColumns, readColumnWindow } from '../../src/worker/column-window.ts';
import { RowWindows } from '../../src/worker/row-windows.ts';
import type { WindowTask } from '../../src/worker/protocol.ts';

/** Each kind a window of arrays holds, its DuckDB type and edge values as SQL (NULL among them). */
const KINDS: { storage: StorageKind; duckType: string; values: string[] }[] = [
  { storage: 'bool', duckType: 'BOOLEAN', values: ['true', 'false', 'NULL'] },
  { storage: 'int', duckType: 'INTEGER', values: ['0', '-2147483648', '2147483647', 'NULL', '-1'] },
  { storage: 'int8', duckType: 'BIGINT', values: ['0', '-9223372036854775808', '9223372036854775807', '9007199254740993', 'NULL'] },
  { storage: 'float', duckType: 'DOUBLE', values: ['0.1', '1e300', '5e-324', "'NaN'", "'Infinity'", "'-Infinity'", 'NULL', '1e21', '0.30000000000000004'] },
  { storage: 'numeric_text', duckType: 'VARCHAR', values: ["'1e400'", "'-0.000'", 'NULL', "'123456789012345678901234567890.5'"] },
  { storage: 'text', duckType: 'VARCHAR', values: ["''", `'a"b\\c'`, 'NULL', "chr(1) || chr(31) || chr(127)", "'😀 é ü ∑'", "chr(8232) || chr(8233)", "'twelve bytes'", "'thirteen byte'", "repeat('ü', 40)"] },
  { storage: 'bytea', duckType: 'VARCHAR', values: ["'\\x00ff10'", "'\\x'", 'NULL'] },
  { storage: 'date', duckType: 'DATE', values: ["DATE '1970-01-01'", 'make_date(-43, 3, 15)', 'make_date(12345, 1, 1)', "'infinity'::DATE", "'-infinity'::DATE", 'NULL'] },
  ...(['timestamp', 'timestamptz'] as const).map((storage) => ({
    storage,
    duckType: storage === 'timestamp' ? 'TIMESTAMP' : 'TIMESTAMPTZ',
    values: ["TIMESTAMP '1969-12-31 23:59:59.5'", 'make_timestamp(-43, 3, 15, 12, 30, 45.123456)', "TIMESTAMP '2026-12-02 03:04:05.678901'", "'infinity'::TIMESTAMP", "'-infinity'::TIMESTAMP", 'NULL'],
  })),
];

const COLUMNS: PlannedColumn[] = KINDS.map((k, i) => ({ name: `k${i}`, type: k.storage, storageName: `k${i}`, storage: k.storage, duckType: k.duckType }));
/** Rows of the part: each column cycles through its values, so every row mixes them differently. */
const ROWS = 5000;

let scratch: DuckScratch;
let file: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  scratch = await openDuckScratch('column-window-');
  ({ duck } = scratch);
  file = scratch.path('part.parquet');
  await duck.run("SET TimeZone = 'UTC'");
  const select = KINDS.map((k, i) => `CAST(CASE g % ${k.values.length} ${k.values.map((v, n) => `WHEN ${n} THEN CAST(${v} AS ${k.duckType})`).join(' ')} END AS ${k.duckType}) AS k${i}`);
  await duck.run(`COPY (SELECT ${select.join(', ')} FROM range(${ROWS}) t(g) ORDER BY g) TO ${quoteLiteral(file)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 2048)`);
});

afterAll(() => scratch.close());

/** Window tables on the connection now (other tests' windows kept too). */
async function tables(): Promise<number> {
  return (await duck.runAndReadAll(`SELECT count(*)::INTEGER FROM duckdb_tables() WHERE table_name LIKE 'window_%'`)).getRowsJS()[0]![0] as number;
}

const encoders = COLUMNS.map((c) => valueEncoder(c.storage)!);

/** A task for rows `from`-`to` of the window of `size` rows at `start`; `first` is where the worker is told the window starts. */
function task(columns: PlannedColumn[], start: number, size: number, from: number, to: number, first = start): WindowTask {
  const sql = windowColumnsSql(columns, file, start, start + size);
  return {
    type: 'read-window',
    key: `part\u0000${start}\u0000${columns.map((c) => c.storageName).join(',')}`,
    sql: windowSql(columns, file, start, start + size),
    rowsSql: windowSql(columns, file, start + from, start + to),
    columns: sql === null ? undefined : { sql, first, rows: size },
    storages: columns.map((c) => c.storage),
    from,
    to,
  };
}

describe('column windows', () => {
  it('give every kind exactly as a window copied as a table does, NULLs included', async () => {
    const window = await readColumnWindow(duck, windowColumnsSql(COLUMNS, file, 2048, 4096)!, 2048, 2048);
    expect(window).not.toBeNull();
    expect(window!.rows).toBe(2048);
    const rows = cutColumns(window!, encoders, 0, 2048);
    const { columns: _arrays, ...tableTask } = task(COLUMNS, 2048, 2048, 0, 2048);
    const table = await new RowWindows().rows(duck, tableTask);
    expect(rows).toEqual(table.rowsJson);
    // And, parsed, what DuckDB's own encoding gives for the same rows.
    const fromDuckdb = await duck.runAndReadAll(`SELECT ${rowJsonExpression(COLUMNS)} FROM read_parquet(${quoteLiteral(file)}, file_row_number = true) WHERE file_row_number >= 2048 AND file_row_number < 4096`);
    expect(rows.map((r) => JSON.parse(r) as unknown)).toEqual(fromDuckdb.getRowsJS().map((r) => JSON.parse(String(r[0])) as unknown));
    expect(rows.some((r) => r.includes('😀'))).toBe(true);
  });

  it('cuts the rows asked for, and counts the bytes it holds', async () => {
    const window = (await readColumnWindow(duck, windowColumnsSql(COLUMNS, file, 4096, ROWS)!, 4096, ROWS - 4096))!;
    expect(cutColumns(window, encoders, 100, 103).map((r) => (JSON.parse(r) as unknown[])[1])).toEqual([4196 % 5, 4197 % 5, 4198 % 5].map((n) => [0, -2147483648, 2147483647, null, -1][n]));
    expect(cutColumns(window, encoders, ROWS - 4096 - 1, ROWS)).toHaveLength(1);
    // At least each fixed value's bytes (1 to 8 a value) and each text's.
    expect(window.bytes).toBeGreaterThan((ROWS - 4096) * (1 + 4 + 8 + 8 + 4 + 8 + 8));
  });

  it('makes no window when the lists are not the window rows in order', async () => {
    const sql = windowColumnsSql(COLUMNS, file, 0, 100)!;
    expect(await readColumnWindow(duck, sql, 0, 100)).not.toBeNull();
    // The rows' numbers checked against another start, as lists out of order would be.
    expect(await readColumnWindow(duck, sql, 1, 100)).toBeNull();
    expect(await readColumnWindow(duck, sql, 0, 99)).toBeNull();
  });

  it('makes no window of text past its bound', async () => {
    const wide = scratch.path('wide.parquet');
    const rows = Math.ceil(COLUMN_WINDOW_TEXT_BYTES / 500_000) + 1;
    await duck.run(`COPY (SELECT g::BIGINT AS n, repeat('x', 500000) AS t FROM range(${rows}) t(g)) TO ${quoteLiteral(wide)} (FORMAT parquet)`);
    const columns: PlannedColumn[] = [
      { name: 'n', type: 'int8', storageName: 'n', storage: 'int8', duckType: 'BIGINT' },
      { name: 't', type: 'text', storageName: 't', storage: 'text', duckType: 'VARCHAR' },
    ];
    expect(await readColumnWindow(duck, windowColumnsSql(columns, wide, 0, rows)!, 0, rows)).toBeNull();
    expect(await readColumnWindow(duck, windowColumnsSql(columns, wide, 0, rows - 2)!, 0, rows - 2)).not.toBeNull();
  });

  it('holds a column of NULLs only', async () => {
    const nulls = scratch.path('nulls.parquet');
    await duck.run(`COPY (SELECT NULL::VARCHAR AS t, NULL::BIGINT AS n FROM range(10)) TO ${quoteLiteral(nulls)} (FORMAT parquet)`);
    const columns: PlannedColumn[] = [
      { name: 't', type: 'text', storageName: 't', storage: 'text', duckType: 'VARCHAR' },
      { name: 'n', type: 'int8', storageName: 'n', storage: 'int8', duckType: 'BIGINT' },
    ];
    const window = (await readColumnWindow(duck, windowColumnsSql(columns, nulls, 0, 10)!, 0, 10))!;
    expect(cutColumns(window, columns.map((c) => valueEncoder(c.storage)!), 0, 2)).toEqual(['[null,null]', '[null,null]']);
  });

  it('is made only of kinds it holds, and not past 64 columns', () => {
    const decimal: PlannedColumn = { name: 'd', type: 'numeric', storageName: 'd', storage: 'decimal', duckType: 'DECIMAL(10,2)' };
    expect(windowColumnsSql([COLUMNS[0]!, decimal], file, 0, 10)).toBeNull();
    expect(windowColumnsSql(Array.from({ length: 65 }, () => COLUMNS[0]!), file, 0, 10)).toBeNull();
    expect(windowColumnsSql(Array.from({ length: 64 }, () => COLUMNS[0]!), file, 0, 10)).not.toBeNull();
  });
});

describe('RowWindows with column windows', () => {
  it('keeps a window of arrays, answers from it with no statement, and counts its bytes', async () => {
    const windows = new RowWindows();
    const before = await tables();
    const first = await windows.rows(duck, task(COLUMNS, 0, 2048, 10, 12));
    expect(first).toMatchObject({ read: true, kept: true });
    const held = windows.held;
    expect(held.windows).toBe(1);
    let statements = 0;
    const counted = new Proxy(duck, {
      get(target, name) {
        const member = Reflect.get(target, name, target) as unknown;
        if (typeof member !== 'function') return member;
        return (...args: unknown[]) => {
          statements += 1;
          return (member as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const again = await windows.rows(counted, task(COLUMNS, 0, 2048, 2046, 2050));
    expect(again).toMatchObject({ read: false, kept: true });
    expect(again.rowsJson).toHaveLength(2);
    expect(statements).toBe(0);
    // No table is left behind: the window is arrays.
    expect(await tables()).toBe(before);
    await windows.forget(duck, [task(COLUMNS, 0, 2048, 0, 1).key]);
    expect(windows.held).toEqual({ windows: 0, bytes: 0 });
  });

  it('keeps windows of arrays up to its bound, past the measure that bounds its tables', async () => {
    const starts = [0, 500, 1000, 1500, 2000, 2500];
    let largest = 0;
    for (const start of starts) {
      const alone = new RowWindows();
      await alone.rows(duck, task(COLUMNS, start, 500, 0, 1));
      largest = Math.max(largest, alone.held.bytes);
    }
    // Tables would be held to four windows here; arrays are held to the bound, six.
    const windows = new RowWindows(6 * largest, 4 * largest);
    const before = await tables();
    for (const start of starts) expect(await windows.rows(duck, task(COLUMNS, start, 500, 0, 1))).toMatchObject({ read: true, kept: true });
    expect(windows.held.windows).toBe(6);
    expect(windows.held.bytes).toBeGreaterThan(4 * largest);
    for (const start of starts) expect((await windows.rows(duck, task(COLUMNS, start, 500, 1, 2))).read).toBe(false);
    expect(await tables()).toBe(before);
  });

  it('copies a table when the arrays cannot be made, with the same rows', async () => {
    const windows = new RowWindows();
    const before = await tables();
    const wrongStart = await windows.rows(duck, task(COLUMNS, 0, 2048, 5, 9, 1));
    expect(await tables()).toBe(before + 1);
    const right = await new RowWindows().rows(duck, task(COLUMNS, 0, 2048, 5, 9));
    expect(wrongStart.rowsJson).toEqual(right.rowsJson);
    await windows.forget(duck, [task(COLUMNS, 0, 2048, 0, 1).key]);
  });

  it('answers a batch of windows of arrays and of tables, each its own rows', async () => {
    const windows = new RowWindows();
    const tasks = [task(COLUMNS, 0, 2048, 0, 3), task(COLUMNS, 2048, 2048, 7, 9), { ...task(COLUMNS, 4096, ROWS - 4096, 1, 4), columns: undefined }, task(COLUMNS, 0, 2048, 100, 101)];
    const answers = await windows.rowsOfMany(duck, tasks, () => undefined);
    const alone = await Promise.all(tasks.map((t) => new RowWindows().rows(duck, t)));
    expect(answers.map((a) => (a.ok ? a.value.rowsJson : a.error))).toEqual(alone.map((a) => a.rowsJson));
    expect(windows.held.windows).toBe(3);
  });
});
