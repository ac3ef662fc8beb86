/**
 * Where the export's resident memory goes, in one process: the peak RSS
 * (VmHWM, reset between stages through /proc/self/clear_refs) of
 *   0. a Sluice server at rest, before any query (five JS isolates: the API and 2+2 workers);
 *   1. receiving the COPY on node-postgres (src/datasources/postgres/export/copy-out.ts) and writing CSV parts (no DuckDB);
 *   2. DuckDB converting one 32 MiB CSV part to Parquet, per setting;
 *   3. a whole export through the API.
 * Each figure is the peak minus the RSS the stage started from.
 *
 *   node --expose-gc --import tsx bench/diag/export-memory.ts [rows=5000000] [variant]
 * With a variant index (0-4), only stages 0-1 and that conversion variant run: run each in a
 * process of its own, as glibc and DuckDB keep memory they once took.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { CopyOut } from '../../src/datasources/postgres/export/copy-out.ts';
import { clientConfig } from '../../src/datasources/postgres/export/pg-connect.ts';
import { plannedColumns } from '../lib/describe.ts';
import { csvToParquetSql } from '../../src/worker/export/duckdb-csv.ts';
import { currentRss, peakRss } from '../lib/memory.ts';
import { mb } from '../lib/stats.ts';
import { runExport, startBenchSluice, submitAndWait } from '../lib/sluice.ts';
import { DATABASE_URL, exportSql } from '../lib/tables.ts';

const rows = Number(process.argv[2] ?? 5_000_000);
/** Only this conversion variant (index), so that each runs in a fresh process; all when absent. */
const only = process.argv[3] === undefined ? null : Number(process.argv[3]);
const select = exportSql(rows);
const dir = mkdtempSync(join(tmpdir(), 'sluice-diag-mem-'));

async function stage(name: string, fn: () => Promise<void>): Promise<void> {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  writeFileSync('/proc/self/clear_refs', '5');
  const start = currentRss();
  await fn();
  console.log(`${name.padEnd(90)} start ${mb(start).padStart(7)}   peak ${mb(peakRss()).padStart(7)}   growth ${mb(peakRss() - start).padStart(7)}`);
}

const client = new pg.Client(clientConfig(DATABASE_URL));
await client.connect();
try {
  await stage('0  bench process at rest (node, tsx, pg, DuckDB bindings)', async () => undefined);
  const columns = await plannedColumns(select);
  let firstPart = '';
  await stage('1  COPY through copy-out.ts → 32 MiB CSV parts (writeSync)', async () => {
    let part = 0;
    let bytes = 0;
    let fd = openSync(join(dir, 'p0.csv'), 'w');
    firstPart = join(dir, 'p0.csv');
    for await (const { bytes: chunk } of client.query(new CopyOut(`COPY (${select}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)`))) {
      writeSync(fd, chunk);
      bytes += chunk.length;
      if (bytes >= 32 * 1024 * 1024) {
        closeSync(fd);
        part++;
        fd = openSync(join(dir, `p${part}.csv`), 'w');
        bytes = 0;
      }
    }
    closeSync(fd);
  });
  // Variants of the conversion statement Sluice runs (src/export/duckdb-csv.ts), changed by text.
  const variants: [string, string, (sql: string) => string, string][] = [
    ['1', '256MB', (q) => q, 'as in src'],
    ['2', '512MB', (q) => q, 'as in src'],
    ['1', '256MB', (q) => q.replace(/max_line_size = \d+, buffer_size = \d+, /, ''), "read_csv's default buffer (32 MB)"],
    ['1', '256MB', (q) => q.replace(', ROW_GROUP_SIZE 30000', ''), "Parquet's default row groups"],
    ['1', '256MB', (q) => `SET preserve_insertion_order = false; ${q}`, 'preserve_insertion_order=false'],
  ];
  for (const [index, [threads, memory, change, label]] of variants.entries()) {
    if (only !== null && index !== only) continue;
    await stage(`2  DuckDB: one 32 MiB CSV part → Parquet, threads=${threads} ${memory}, ${label}`, async () => {
      const instance = await DuckDBInstance.create(':memory:', { threads, memory_limit: memory });
      const duck = await instance.connect();
      await duck.run("SET TimeZone = 'UTC'");
      const t0 = performance.now();
      for (let i = 0; i < 3; i++) await duck.run(change(csvToParquetSql(firstPart, join(dir, `p0-${i}.parquet`), columns, { longestRow: 0, mayHoldBc: false })));
      process.stdout.write(`   (${((performance.now() - t0) / 3).toFixed(0)} ms per part) `);
      duck.closeSync();
      instance.closeSync();
    });
  }
} finally {
  await client.end();
  rmSync(dir, { recursive: true, force: true });
}

if (only === null) await stage('0b Sluice server started, before any query', async () => {
  const s = await startBenchSluice();
  await new Promise((r) => setTimeout(r, 500));
  await stage('3a   its first query (SELECT 1: DuckDB starts in the worker)', async () => {
    await submitAndWait(s, { sql: 'SELECT 1', materialize: 'never' });
  });
  await stage(`3b   an export of ${rows} rows through the API`, async () => {
    await runExport(s, select);
  });
  await s.stop();
});
