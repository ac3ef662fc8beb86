/**
 * Where an export's time goes, stage by stage, in one process (no HTTP, no
 * worker): wall and CPU time (all threads) of
 *   1. psql COPY CSV (what Sluice asks for), and COPY CSV with FORCE_QUOTE * (what it asked for before), to /dev/null;
 *   2. receiving the same COPY on node-postgres and discarding it: through pg-copy-streams
 *      (chunks of whole socket reads; + the record scanner per chunk to count rows), and
 *      through src/datasources/postgres/export/copy-out.ts (rows counted from the CopyData messages);
 *   3. copy-out + writeSync of each chunk into 32 MiB CSV part files;
 *   4. DuckDB read_csv → Parquet of those parts, one after another, per DuckDB setting;
 *   5. SHA-256 of the Parquet parts.
 * Stages run one after another, so their sum is what a pipeline without overlap costs.
 *
 *   npx tsx bench/diag/export-stages.ts [rows=5000000]
 */
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { CopyOut } from '../../src/datasources/postgres/export/copy-out.ts';
import { CsvRecordScanner } from '../../src/worker/export/csv-record-scanner.ts';
import { csvToParquetSql } from '../../src/worker/export/duckdb-csv.ts';
import { clientConfig, sessionConfig } from '../../src/datasources/postgres/export/pg-connect.ts';
import { plannedColumns } from '../lib/describe.ts';
import { DATABASE_URL, exportSql } from '../lib/tables.ts';

const rows = Number(process.argv[2] ?? 5_000_000);
const PART = 32 * 1024 * 1024;
const select = exportSql(rows);
const dir = mkdtempSync(join(tmpdir(), 'sluice-diag-'));

async function stage<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(`${name.padEnd(58)} wall ${(wall / 1000).toFixed(2).padStart(6)} s   cpu(this process) ${((cpu.user + cpu.system) / 1e6).toFixed(2).padStart(6)} s`);
  return value;
}

function psql(copy: string): void {
  execSync(`psql -X -q -h 127.0.0.1 -U postgres -d test -c "${copy}" > /dev/null`);
}

const client = new pg.Client(clientConfig(DATABASE_URL));
await client.connect();
// pg-copy-streams reads the socket's 'data' events, which a tapped socket (read-tap.ts) does not emit during a COPY.
const plain = new pg.Client(sessionConfig(DATABASE_URL));
await plain.connect();
try {
  const columns = await plannedColumns(select);
  psql(`COPY (${select}) TO STDOUT (FORMAT csv)`); // warm the page cache
  await stage('1a psql COPY csv > /dev/null', async () => psql(`COPY (${select}) TO STDOUT (FORMAT csv)`));
  await stage('1b psql COPY csv FORCE_QUOTE * > /dev/null', async () => psql(`COPY (${select}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)`));
  const copyText = `COPY (${select}) TO STDOUT (FORMAT csv)`;
  /** The COPY through pg-copy-streams, each chunk (the CopyData of one socket read, framing removed) to `onChunk`. */
  async function viaCopyStreams(text: string, onChunk: (chunk: Buffer) => void): Promise<void> {
    const stream = plain.query(copyTo(text));
    await new Promise<void>((resolve, reject) => {
      stream.on('data', onChunk);
      stream.once('end', resolve);
      stream.once('error', reject);
    });
  }
  /** The COPY through copy-out.ts: chunks of whole rows, counted. */
  async function viaCopyOut(onChunk: (chunk: Uint8Array, rows: number) => void): Promise<void> {
    for await (const chunk of client.query(new CopyOut(copyText))) onChunk(chunk.bytes, chunk.rows!);
  }
  await stage('2a pg-copy-streams, chunks discarded', async () => {
    let chunks = 0;
    await viaCopyStreams(copyText, () => chunks++);
    console.log(`   (${chunks} chunks for ${rows} rows)`);
  });
  await stage('2b pg-copy-streams + CsvRecordScanner per chunk', async () => {
    const scanner = new CsvRecordScanner();
    let records = 0;
    await viaCopyStreams(copyText, (chunk) => (records += scanner.scan(chunk).records));
    if (records !== rows) throw new Error(`scanner counted ${records}`);
  });
  await stage('2c pg-copy-streams + scanner, COPY with FORCE_QUOTE *', async () => {
    const scanner = new CsvRecordScanner();
    let records = 0;
    await viaCopyStreams(`COPY (${select}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)`, (chunk) => (records += scanner.scan(chunk).records));
    if (records !== rows) throw new Error(`scanner counted ${records}`);
  });
  await stage('2d copy-out.ts, rows counted from the messages', async () => {
    let records = 0;
    let chunks = 0;
    await viaCopyOut((_, n) => {
      records += n;
      chunks++;
    });
    if (records !== rows) throw new Error(`counted ${records}`);
    console.log(`   (${chunks} chunks for ${rows} rows)`);
  });
  const csvBytes = await stage('3  2d + writeSync of each chunk into 32 MiB CSV parts', async () => {
    let part = 0;
    let fd = openSync(join(dir, `part-${part}.csv`), 'w');
    let partBytes = 0;
    let total = 0;
    await viaCopyOut((chunk) => {
      writeSync(fd, chunk);
      partBytes += chunk.length;
      total += chunk.length;
      // Cut at chunk ends (whole rows): each part converts on its own.
      if (partBytes >= PART) {
        closeSync(fd);
        part++;
        fd = openSync(join(dir, `part-${part}.csv`), 'w');
        partBytes = 0;
      }
    });
    closeSync(fd);
    return total;
  });
  // Re-cut the stream on record boundaries for DuckDB (stage 3 cut at chunk ends).
  const whole = Buffer.concat(readdirSync(dir).filter((f) => f.endsWith('.csv')).sort((a, b) => Number(a.slice(5, -4)) - Number(b.slice(5, -4))).map((f) => readFileSync(join(dir, f))));
  for (const f of readdirSync(dir)) rmSync(join(dir, f));
  const parts: string[] = [];
  for (let start = 0, i = 0; start < whole.length; i++) {
    let end = Math.min(whole.length, start + PART);
    if (end < whole.length) end = whole.lastIndexOf(0x0a, end) + 1;
    const file = join(dir, `part-${String(i).padStart(5, '0')}.csv`);
    const fd = openSync(file, 'w');
    writeSync(fd, whole.subarray(start, end));
    closeSync(fd);
    parts.push(file);
    start = end;
  }
  console.log(`   (${(csvBytes / 1e6).toFixed(0)} MB of CSV in ${parts.length} parts)`);
  for (const [threads, memory] of [['1', '256MB'], ['2', '512MB'], ['2', '']] as const) {
    const instance = await DuckDBInstance.create(':memory:', { threads, ...(memory ? { memory_limit: memory } : {}) });
    const duck = await instance.connect();
    await duck.run("SET TimeZone = 'UTC'");
    await stage(`4  DuckDB CSV → Parquet, threads=${threads} memory_limit=${memory || 'default'}`, async () => {
      for (const p of parts) await duck.run(csvToParquetSql(p, p.replace(/\.csv$/, '.parquet'), columns, { longestRow: 0, mayHoldBc: false }));
    });
    duck.closeSync();
  }
  const parquet = parts.map((p) => p.replace(/\.csv$/, '.parquet'));
  await stage('5  SHA-256 of the Parquet parts', async () => {
    for (const p of parquet) createHash('sha256').update(readFileSync(p)).digest('hex');
  });
  console.log(`   (${(parquet.reduce((s, p) => s + statSync(p).size, 0) / 1e6).toFixed(0)} MB of Parquet)`);
} finally {
  await client.end();
  await plain.end();
  rmSync(dir, { recursive: true, force: true });
}
