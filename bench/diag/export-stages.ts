/**
 * Where an export's time goes, stage by stage, in one process (no HTTP, no
 * worker): wall and CPU time (all threads) of
 *   1. psql COPY CSV, and COPY CSV with FORCE_QUOTE * (what Sluice asks for), to /dev/null;
 *   2. the same COPY through postgres.js .readable(): chunks discarded; + the record
 *      scanner per chunk; + batching and the scanner per batch; batching and counting chunks;
 *   3. + writeSync of each batch into 32 MiB CSV part files;
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
import postgres from 'postgres';
import { planColumns } from '../../src/columns/column-plan.ts';
import { CsvRecordScanner } from '../../src/worker/export/csv-record-scanner.ts';
import { describeQuery } from '../../src/worker/export/describe-query.ts';
import { csvToParquetSql } from '../../src/worker/export/duckdb-csv.ts';
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

const sql = postgres(DATABASE_URL, { max: 1, fetch_types: false, onnotice: () => undefined });
try {
  const columns = planColumns((await describeQuery(sql, select, [])).columns);
  psql(`COPY (${select}) TO STDOUT (FORMAT csv)`); // warm the page cache
  await stage('1a psql COPY csv > /dev/null', async () => psql(`COPY (${select}) TO STDOUT (FORMAT csv)`));
  await stage('1b psql COPY csv FORCE_QUOTE * > /dev/null', async () => psql(`COPY (${select}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)`));
  const copyText = `COPY (${select}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)`;
  /**
   * The COPY stream read in flowing mode ('data' events, as src/export/row-sources.ts does), so
   * each chunk is one CopyData message. The _read(0) at the end resumes the socket postgres.js
   * may have left paused (else the next statement on this connection waits forever).
   */
  async function copy(onChunk: (chunk: Buffer) => void): Promise<void> {
    const stream = await sql.unsafe(copyText).readable();
    await new Promise<void>((resolve, reject) => {
      stream.on('data', onChunk);
      stream.once('end', () => {
        (stream as unknown as { _read(n: number): void })._read(0);
        resolve();
      });
      stream.once('error', reject);
    });
  }
  await stage('2a postgres.js .readable(), chunks counted and discarded', async () => {
    let chunks = 0;
    await copy(() => chunks++);
    // PostgreSQL sends one CopyData message per row of COPY TO, and postgres.js pushes one chunk per message.
    console.log(`   (${chunks} 'data' chunks for ${rows} rows: ${chunks === rows ? 'one chunk per row' : 'NOT one per row'})`);
  });
  await stage('2b + CsvRecordScanner on every chunk', async () => {
    const scanner = new CsvRecordScanner();
    let records = 0;
    await copy((chunk) => (records += scanner.scan(chunk).records));
    if (records !== rows) throw new Error(`scanner counted ${records}`);
  });
  function batcher(onBatch: (batch: Buffer, chunks: number) => void): { add(chunk: Buffer): void; flush(): void } {
    let batch: Buffer[] = [];
    let bytes = 0;
    return {
      add(chunk) {
        batch.push(chunk);
        bytes += chunk.length;
        if (bytes >= 256 * 1024) this.flush();
      },
      flush() {
        onBatch(Buffer.concat(batch, bytes), batch.length);
        batch = [];
        bytes = 0;
      },
    };
  }
  await stage('2c + chunks joined into ~256 kB batches, scanner per batch', async () => {
    const scanner = new CsvRecordScanner();
    let records = 0;
    const b = batcher((batch) => (records += scanner.scan(batch).records));
    await copy((chunk) => b.add(chunk));
    b.flush();
    if (records !== rows) throw new Error(`scanner counted ${records}`);
  });
  await stage('2d chunks joined into ~256 kB batches, rows = chunks (no scan)', async () => {
    let records = 0;
    const b = batcher((_, chunks) => (records += chunks));
    await copy((chunk) => b.add(chunk));
    b.flush();
    if (records !== rows) throw new Error(`counted ${records}`);
  });
  const csvBytes = await stage('3  2c + writeSync of each batch into 32 MiB CSV parts', async () => {
    const scanner = new CsvRecordScanner();
    let part = 0;
    let fd = openSync(join(dir, `part-${part}.csv`), 'w');
    let partBytes = 0;
    let total = 0;
    const b = batcher((batch) => {
      scanner.scan(batch);
      writeSync(fd, batch);
      partBytes += batch.length;
      total += batch.length;
      // Cut at batch ends: the parts here only feed stage 4, which re-cuts them on record boundaries.
      if (partBytes >= PART) {
        closeSync(fd);
        part++;
        fd = openSync(join(dir, `part-${part}.csv`), 'w');
        partBytes = 0;
      }
    });
    await copy((chunk) => b.add(chunk));
    b.flush();
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
  await sql.end({ timeout: 2 });
  rmSync(dir, { recursive: true, force: true });
}
