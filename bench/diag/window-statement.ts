/**
 * What one window's statement costs DuckDB, and which of its parts: the
 * lists statement a worker runs (windowColumnsSql), the same rows as plain
 * chunks, the count of the rows alone (the footer and the row numbers),
 * each with DuckDB's Parquet metadata cache off and on. CPU of this process
 * (all threads) a statement, medians of five rounds, the order rotated.
 *
 *   npx tsx bench/diag/window-statement.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { windowColumnsSql } from '../../src/artifacts/read-sql.ts';
import { quoteLiteral } from '../../src/columns/column-plan.ts';
import { cpuPerRun, writePageParts } from '../lib/page-parts.ts';

const WINDOW = 30_720;
const dir = mkdtempSync(join(tmpdir(), 'window-statement-'));
const duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
await duck.run("SET TimeZone = 'UTC'");
try {
  const { columns, parts: written } = await writePageParts(duck, dir);
  const parts = written.map((p) => p.path);
  const at = (i: number) => ((i * 7919) % 6) * WINDOW;
  const range = (i: number) => `FROM read_parquet(${quoteLiteral(parts[i % 10]!)}, file_row_number = true) WHERE file_row_number >= ${at(i)} AND file_row_number < ${at(i) + WINDOW}`;
  const names = columns.map((c) => `"${c.storageName}"`).join(', ');
  const statements: Record<string, (i: number) => string> = {
    lists: (i) => windowColumnsSql(columns, parts[i % 10]!, at(i), at(i) + WINDOW)!,
    chunks: (i) => `SELECT ${names} ${range(i)}`,
    count: (i) => `SELECT count(*) ${range(i)}`,
  };
  for (const cache of [false, true]) {
    await duck.run(`SET parquet_metadata_cache = ${cache}`);
    const rounds: Record<string, number>[] = [];
    const order = Object.entries(statements);
    for (let r = 0; r < 5; r++) {
      const round: Record<string, number> = {};
      for (const [name, sql] of [...order.slice(r % order.length), ...order.slice(0, r % order.length)]) {
        round[name] = await cpuPerRun(20, async (i) => (await duck.run(sql(i))).fetchAllChunks());
      }
      rounds.push(round);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    for (const name of Object.keys(statements)) console.log(`metadata cache ${cache ? 'on ' : 'off'} ${name.padEnd(7)} ${median(rounds.map((x) => x[name]!)).toFixed(2)} ms CPU a statement`);
  }
} finally {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
}
