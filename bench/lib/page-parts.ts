/**
 * Parts written as exports write them, for the page diagnostics: the pages
 * bench's 7 columns, 10 parts of 200k rows, snappy, ROW_GROUP_SIZE 30000
 * (a row group of 30,720 rows: one window); and the CPU an operation costs
 * this process, all threads, DuckDB's included.
 */
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral, type PlannedColumn } from '../../src/columns/column-plan.ts';
import { plannedColumns } from './describe.ts';

const COLUMNS = ['g::int8', 'md5(g::text)', '(g % 1000)::int4', 'now()::timestamptz', '(g * 0.5)::float8', '(g % 7 = 0)', "('name-' || (g % 5000))::text"];
export const PART_ROWS = 200_000;

/** The column plan PostgreSQL gives the bench's columns, and 10 parts of them written into `dir`. */
export async function writePageParts(duck: DuckDBConnection, dir: string): Promise<{ columns: PlannedColumn[]; parts: { path: string; rows: number }[] }> {
  const columns = await plannedColumns(`select ${COLUMNS.map((c, i) => `${c} as c${i}`).join(', ')} from generate_series(1, 10) g`);
  const parts: { path: string; rows: number }[] = [];
  for (let i = 0; i < 10; i++) {
    const path = join(dir, `part-${String(i).padStart(5, '0')}.parquet`);
    const select = columns.map((c, k) => `${COLUMNS[k]!.replaceAll('g', `(g + ${i * PART_ROWS})`).replace('(g + 0)', 'g')} AS "${c.storageName}"`).join(', ');
    await duck.run(`COPY (SELECT ${select} FROM generate_series(1, ${PART_ROWS}) t(g)) TO ${quoteLiteral(path)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 30000)`);
    parts.push({ path, rows: PART_ROWS });
  }
  return { columns, parts };
}

/** Milliseconds of this process's CPU (user and system, every thread) for each of `n` runs of `run`, one after another. */
export async function cpuPerRun(n: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await run(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / n;
}
