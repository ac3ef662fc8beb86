/**
 * One export from a datasource of another kind, in a process of its own (so
 * its peak RSS and event-loop stalls are its own); prints one JSON line.
 *
 *   kinds-child.ts sluice <datasource> <rows>   Sluice in-process: one warm-up query on that datasource,
 *                                               then POST /api/queries with materialize 'always', polled to SUCCEEDED
 *   kinds-child.ts duckdb <rows>                DuckDB in this process reading the folder's Parquet file and
 *                                               writing it as CSV to /dev/null (the folder kind's baseline)
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { KIND_DATASOURCES, KIND_ROWS, kindSql, PARQUET_FILE } from './lib/kind-sources.ts';
import { sampleLoopGaps } from './lib/loop-gap.ts';
import { currentRss, peakRss } from './lib/memory.ts';
import { startBenchSluice, submitAndWait } from './lib/sluice.ts';

const [mode, ...args] = process.argv.slice(2);

async function sluiceExport(datasource: string, rows: number) {
  const s = await startBenchSluice({ SLUICE_DATASOURCES: JSON.stringify(KIND_DATASOURCES) });
  try {
    await submitAndWait(s, { sql: 'SELECT 1 AS one', datasource, materialize: 'never' });
    await new Promise((r) => setTimeout(r, 300));
    const rssBefore = currentRss();
    const gaps = sampleLoopGaps(10);
    const { totalMs, data } = await submitAndWait(s, { sql: kindSql(rows), datasource, materialize: 'always' });
    const loop = gaps.stop();
    if (data.state !== 'SUCCEEDED' || data.artifact?.rowCount !== rows) throw new Error(`export ended ${data.state}: ${JSON.stringify(data.error ?? data.artifact)}`);
    return { totalMs, rows, sizeBytes: data.artifact.sizeBytes, rssBeforeBytes: rssBefore, peakRssBytes: peakRss(), loopMaxMs: loop.maxMs };
  } finally {
    await s.stop();
  }
}

async function duckdbDirect(rows: number) {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  try {
    const where = rows < KIND_ROWS ? ` WHERE id <= ${rows}` : '';
    const t0 = performance.now();
    await connection.run(`COPY (SELECT * FROM read_parquet('${PARQUET_FILE.replaceAll("'", "''")}')${where}) TO '/dev/null' (FORMAT csv)`);
    return { totalMs: performance.now() - t0, rows, peakRssBytes: peakRss() };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

try {
  const result =
    mode === 'sluice' ? await sluiceExport(args[0]!, Number(args[1])) : mode === 'duckdb' ? await duckdbDirect(Number(args[0])) : null;
  if (result === null) throw new Error(`unknown mode "${mode}"; use sluice or duckdb`);
  console.log(JSON.stringify(result));
  process.exit(0);
} catch (error) {
  console.error(error);
  console.log(JSON.stringify({ error: (error as Error).message }));
  process.exit(1);
}
