/**
 * One export in a process of its own, so its peak RSS (VmHWM) and its
 * event-loop stalls are its own. Prints one JSON line. Run compiled
 * (lib/child.ts); `tsx bench/export-child.ts …` works too, with tsx's memory on top.
 *
 *   tsx bench/export-child.ts sluice <rows>        Sluice in-process: after one small warm-up query (whose
 *                                                  time to preview is the cold figure), POST /api/queries with
 *                                                  materialize 'always' and waitMs 0, poll to SUCCEEDED
 *   tsx bench/export-child.ts peer-literal <rows>  the straightforward way: node-postgres in the main thread,
 *                                                  client.query(query) buffered, JSON.stringify(rows) to a file
 *   tsx bench/export-child.ts peer <rows>          the same, but stringified in 100,000-row slices, which is
 *                                                  what it takes once the whole array no longer fits a string
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sessionConfig } from '../src/datasources/postgres/export/pg-connect.ts';
import { sampleLoopGaps } from './lib/loop-gap.ts';
import { sampleBackendCpu } from './lib/pg-backend-cpu.ts';
import { currentRss, peakRss } from './lib/memory.ts';
import { runExport, startBenchSluice, submitAndWait } from './lib/sluice.ts';
import { DATABASE_URL, exportSql } from './lib/tables.ts';

const [mode, rowsArg] = process.argv.slice(2);
const rows = Number(rowsArg);

async function sluiceExport() {
  const s = await startBenchSluice();
  try {
    // The first query of a fresh server pays for DuckDB's start in the worker and the SQL parser's load.
    const cold = await submitAndWait(s, { sql: 'SELECT 1 AS one', materialize: 'never' });
    await new Promise((r) => setTimeout(r, 300));
    const rssBefore = currentRss();
    const gaps = sampleLoopGaps(10);
    // CPU of the whole process (every thread: the API, the workers, DuckDB's) and of the backends serving it.
    const backends = await sampleBackendCpu(DATABASE_URL);
    const cpuBefore = process.cpuUsage();
    const timing = await runExport(s, exportSql(rows));
    const cpu = process.cpuUsage(cpuBefore);
    const pg = await backends.stop();
    const loop = gaps.stop();
    return {
      mode,
      ...timing,
      coldPreviewMs: cold.previewMs,
      rssBeforeBytes: rssBefore,
      peakRssBytes: peakRss(),
      loopMaxMs: loop.maxMs,
      loopP99Ms: loop.p99Ms,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      pgCpuSeconds: pg.seconds,
      pgBackends: pg.backends,
    };
  } finally {
    await s.stop();
  }
}

async function peerExport(literal: boolean) {
  const dir = mkdtempSync(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'sluice-bench-peer-'));
  const client = new pg.Client(sessionConfig(DATABASE_URL));
  try {
    await client.connect();
    await client.query('SELECT 1');
    const rssBefore = currentRss();
    const gaps = sampleLoopGaps(10);
    const t0 = performance.now();
    let failure: string | null = null;
    let fetched = 0;
    let fetchMs = 0;
    const file = join(dir, 'result.json');
    try {
      const result = (await client.query(exportSql(rows))).rows;
      fetchMs = performance.now() - t0;
      fetched = result.length;
      if (literal) {
        writeFileSync(file, JSON.stringify(result));
      } else {
        const fd = openSync(file, 'w');
        writeSync(fd, '[');
        for (let i = 0; i < result.length; i += 100_000) {
          writeSync(fd, (i > 0 ? ',' : '') + JSON.stringify(result.slice(i, i + 100_000)).slice(1, -1));
        }
        writeSync(fd, ']');
        closeSync(fd);
      }
    } catch (error) {
      failure = `${(error as Error).name}: ${(error as Error).message}`;
    }
    const totalMs = performance.now() - t0;
    const loop = gaps.stop();
    const sizeBytes = failure === null ? statSync(file).size : 0;
    return { mode, rows: fetched, fetchMs, totalMs, sizeBytes, failure, rssBeforeBytes: rssBefore, peakRssBytes: peakRss(), loopMaxMs: loop.maxMs, loopP99Ms: loop.p99Ms };
  } finally {
    await client.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  const result = mode === 'sluice' ? await sluiceExport() : mode === 'peer' || mode === 'peer-literal' ? await peerExport(mode === 'peer-literal') : null;
  if (result === null) throw new Error(`unknown mode "${mode}"; use sluice, peer or peer-literal`);
  console.log(JSON.stringify(result));
  process.exit(0);
} catch (error) {
  console.error(error);
  console.log(JSON.stringify({ error: (error as Error).message }));
  process.exit(1);
}
