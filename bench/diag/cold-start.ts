/**
 * Why the first query after start is slow to show its preview: times, in a
 * fresh process, the pieces the first query pays for once: libpg-query's
 * first parse (main thread), a DuckDB instance and connection (the worker
 * creates its own lazily, on its first task), and then the first and second
 * query through the API (POST answered, preview shown).
 *
 *   npx tsx bench/diag/cold-start.ts [delayMs=0] [--no-preload]
 * delayMs: wait that long after startSluice before the first query (lets the
 * workers finish loading their modules); --no-preload: skip the timings that
 * load libpg-query and DuckDB in the main thread first.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'libpg-query';
import { startBenchSluice, submitAndWait } from '../lib/sluice.ts';

async function time(label: string, fn: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  await fn();
  console.log(`${label.padEnd(60)} ${(performance.now() - t0).toFixed(0).padStart(6)} ms`);
}

const delayMs = Number(process.argv[2] ?? 0);
if (!process.argv.includes('--no-preload')) {
  await time('libpg-query: first parse in this process', () => parse('SELECT 1'));
  await time('libpg-query: second parse', () => parse('SELECT 2'));
  await time('DuckDB: first instance + connection in this process', async () => (await DuckDBInstance.create(':memory:', { threads: '1' })).connect());
  await time('DuckDB: another instance + connection', async () => (await DuckDBInstance.create(':memory:', { threads: '1' })).connect());
}
const t0 = performance.now();
const s = await startBenchSluice();
console.log(`${'startSluice (listening, ready)'.padEnd(60)} ${(performance.now() - t0).toFixed(0).padStart(6)} ms`);
try {
  if (delayMs > 0) {
    await new Promise((r) => setTimeout(r, delayMs));
    console.log(`(waited ${delayMs} ms after start)`);
  }
  for (const label of ['first query (SELECT 1, waitMs 0)', 'second query', 'third query']) {
    const t = await submitAndWait(s, { sql: 'SELECT 1', materialize: 'never' });
    console.log(`${label.padEnd(60)} POST answered ${t.acceptedMs.toFixed(0).padStart(5)} ms, preview ${t.previewMs.toFixed(0).padStart(5)} ms`);
  }
  await new Promise((r) => setTimeout(r, 3000));
  const t = await submitAndWait(s, { sql: 'SELECT 1', materialize: 'never' });
  console.log(`${'a query 3 s later'.padEnd(60)} POST answered ${t.acceptedMs.toFixed(0).padStart(5)} ms, preview ${t.previewMs.toFixed(0).padStart(5)} ms`);
} finally {
  await s.stop();
}
