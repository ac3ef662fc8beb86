/**
 * Where DuckDB's half of an export goes: one PostgreSQL COPY CSV of the
 * bench table is cut into parts the export's size (16 MiB, on record
 * boundaries), then each variant converts every part, rounds interleaved
 * (each starting at another variant, after one untimed pass),
 * and prints the process's CPU time (all threads) and the Parquet bytes.
 * Variants split the conversion into reading the CSV (into a temporary
 * table) and writing Parquet (from that table), and try the writer's options.
 *
 *   npx tsx bench/diag/parquet-stages.ts [rows=2000000] [rounds=3]
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { csvToParquetSql, readCsvSql } from '../../src/worker/export/duckdb-csv.ts';
import { plannedColumns } from '../lib/describe.ts';
import { exportSql } from '../lib/tables.ts';

const rows = Number(process.argv[2] ?? 2_000_000);
const rounds = Number(process.argv[3] ?? 3);
const PART = 16 * 1024 * 1024;
const select = exportSql(rows);
const dir = mkdtempSync(join(tmpdir(), 'sluice-pq-'));
const shape = { longestRow: 0, mayHoldBc: false };

const whole = execSync(`psql -X -q -h 127.0.0.1 -U postgres -d test -c "COPY (${select}) TO STDOUT (FORMAT csv)"`, { maxBuffer: 4 << 30 });
const parts: string[] = [];
for (let start = 0, i = 0; start < whole.length; i++) {
  let end = Math.min(whole.length, start + PART);
  if (end < whole.length) end = whole.lastIndexOf(0x0a, end) + 1;
  const file = join(dir, `part-${i}.csv`);
  const fd = openSync(file, 'w');
  writeSync(fd, whole.subarray(start, end));
  closeSync(fd);
  parts.push(file);
  start = end;
}
console.log(`${rows} rows, ${(whole.length / 1e6).toFixed(0)} MB of CSV in ${parts.length} parts`);
for (const p of parts) readFileSync(p); // in the page cache

const columns = await plannedColumns(select);
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const duck = await instance.connect();
await duck.run("SET TimeZone = 'UTC'");

/** The export's writer options with `extra` added, or put in the place of one of the same name. */
function withOptions(options: string, extra: string): string {
  const names = new Set(extra.split(',').map((o) => o.trim().split(' ')[0]).filter(Boolean));
  return [...options.split(',').map((o) => o.trim()).filter((o) => !names.has(o.split(' ')[0]!)), ...extra.split(',').map((o) => o.trim()).filter(Boolean)].join(', ');
}
const write = (extra: string) => async (p: string, i: number) => {
  await duck.run(`COPY (SELECT * FROM parsed_${i}) TO '${p}.parquet' (${withOptions('FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 30000', extra)})`);
};
const convert = (extra: string) => async (p: string) => {
  const sql = csvToParquetSql(p, `${p}.parquet`, columns, shape);
  const at = sql.lastIndexOf('(FORMAT');
  await duck.run(`${sql.slice(0, at)}(${withOptions(sql.slice(at + 1, -1), extra)})`);
};
const variants: [string, (p: string, i: number) => Promise<void>][] = [
  ['convert (the export now)', convert('')],
  ['read CSV only (into a table)', async (p) => {
    await duck.run(`CREATE OR REPLACE TEMP TABLE scratch AS ${readCsvSql(p, columns, shape)}`);
  }],
  ['write Parquet only (from a table)', write('')],
  ['write, COMPRESSION uncompressed', write(', COMPRESSION uncompressed')],
  ['convert, COMPRESSION lz4_raw', convert(', COMPRESSION lz4_raw')],
  ['convert, DICTIONARY_SIZE_LIMIT 1', convert(', DICTIONARY_SIZE_LIMIT 1')],
  ['convert, DICTIONARY_SIZE_LIMIT 256', convert(', DICTIONARY_SIZE_LIMIT 256')],
  ['convert, PARQUET_VERSION V2', convert(', PARQUET_VERSION V2')],
  ['convert, V2, uncompressed', convert(', PARQUET_VERSION V2, COMPRESSION uncompressed')],
  ['convert, V2, lz4_raw', convert(', PARQUET_VERSION V2, COMPRESSION lz4_raw')],
  ['convert, V2, lz4_raw, DICTIONARY_SIZE_LIMIT 256', convert(', PARQUET_VERSION V2, COMPRESSION lz4_raw, DICTIONARY_SIZE_LIMIT 256')],
];
if (variants.some(([name]) => name.startsWith('write'))) {
  for (const [i, p] of parts.entries()) await duck.run(`CREATE TEMP TABLE parsed_${i} AS ${readCsvSql(p, columns, shape)}`);
}

const cpu = new Map<string, number[]>();
const bytes = new Map<string, number>();
// One untimed pass first: the first conversion of a process pays for DuckDB's and V8's warm-up.
for (const p of parts) await convert('')(p);
for (let round = 0; round < rounds; round++) {
  // Each round starts at another variant, so none always runs first.
  for (const [name, run] of variants.map((_, i) => variants[(i + round) % variants.length]!)) {
    const c0 = process.cpuUsage();
    for (const [i, p] of parts.entries()) await run(p, i);
    const c = process.cpuUsage(c0);
    cpu.set(name, [...(cpu.get(name) ?? []), (c.user + c.system) / 1e6]);
    let total = 0;
    for (const p of parts) total += statSync(`${p}.parquet`, { throwIfNoEntry: false })?.size ?? 0;
    if (!name.startsWith('read')) bytes.set(name, total);
    for (const p of parts) rmSync(`${p}.parquet`, { force: true });
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(cpu.get(variants[0]![0])!);
for (const [name] of variants) {
  const m = median(cpu.get(name)!);
  const b = bytes.get(name);
  console.log(`${name.padEnd(48)} cpu ${m.toFixed(2).padStart(6)} s (${(m / base).toFixed(2)}× the export's)   rounds ${cpu.get(name)!.map((x) => x.toFixed(2)).join(' ')}${b ? `   ${(b / 1e6).toFixed(1)} MB` : ''}`);
}
duck.closeSync();
rmSync(dir, { recursive: true, force: true });
