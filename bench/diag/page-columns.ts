/**
 * A read worker's window kept as a DuckDB table against the same window
 * held as JavaScript arrays (row-windows.ts, column-window.ts): CPU for the
 * window's read, 30 pages of 99 rows cut from it one at a time (as a worker
 * with nothing else waiting answers them) and its drop, medians of five
 * rounds with the order rotated. The parts are made as page-window.ts makes
 * them (7 columns like the pages bench, 10 × 200k rows, ROW_GROUP_SIZE
 * 30000); the worker's DuckDB is single-threaded, as here.
 *
 *   npx tsx bench/diag/page-columns.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { windowColumnsSql, windowSql } from '../../src/artifacts/read-sql.ts';
import { RowWindows } from '../../src/worker/row-windows.ts';
import { cpuPerRun, writePageParts } from '../lib/page-parts.ts';

const WINDOW = 30_720;
const PAGES = 30;
const dir = mkdtempSync(join(tmpdir(), 'page-columns-'));
const duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
try {
  const { columns, parts: written } = await writePageParts(duck, dir);
  const parts = written.map((p) => p.path);
  const at = (i: number) => ((i * 7919) % 6) * WINDOW;
  const storages = columns.map((c) => c.storage);
  let key = 0;
  /** A window read, PAGES pages of 99 rows cut from it one by one (as a worker with nothing else waiting), and its drop. */
  const pagesOf = (arrays: boolean) => async (i: number) => {
    const windows = new RowWindows();
    const k = `k${key++}`;
    const path = parts[i % 10]!;
    const sql = windowColumnsSql(columns, path, at(i), at(i) + WINDOW)!;
    for (let p = 0; p < PAGES; p++) {
      const from = p * 1000;
      await windows.rows(duck, { type: 'read-window', key: k, sql: windowSql(columns, path, at(i), at(i) + WINDOW), columns: arrays ? { sql, first: at(i), rows: WINDOW } : undefined, rowsSql: '', storages, from, to: from + 100 });
    }
    await windows.forget(duck, [k]);
  };
  const rounds: Record<string, number>[] = [];
  const order = [
    ['table', pagesOf(false)],
    ['arrays', pagesOf(true)],
  ] as const;
  for (let r = 0; r < 5; r++) {
    const round: Record<string, number> = {};
    for (const [name, run] of [...order.slice(r % order.length), ...order.slice(0, r % order.length)]) round[name] = await cpuPerRun(10, run);
    rounds.push(round);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const name of Object.keys(rounds[0]!)) console.log(`${name}: ${median(rounds.map((x) => x[name]!)).toFixed(2)} ms CPU a window of ${PAGES} pages (${rounds.map((x) => x[name]!.toFixed(1)).join(', ')})`);
} finally {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
}
