/**
 * Resident memory of a Sluice server at rest, by worker count: what the
 * API's process holds before it exports anything (each worker thread is a
 * V8 isolate that registers tsx and loads its own module graph), and after
 * its first query (DuckDB instance in the worker, SQL parser in the API).
 * Each configuration runs in a fresh process.
 *
 *   npx tsx bench/diag/rest-memory.ts            (drives the runs)
 *   npx tsx bench/diag/rest-memory.ts <query> <read>
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { currentRss } from '../lib/memory.ts';
import { mb } from '../lib/stats.ts';
import { startBenchSluice, submitAndWait } from '../lib/sluice.ts';

const [query, read] = process.argv.slice(2);
if (query === undefined) {
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  for (const [q, r] of [['1', '1'], ['2', '2'], ['4', '4']] as const) {
    process.stdout.write(execFileSync(tsx, [fileURLToPath(import.meta.url), q, r], { encoding: 'utf8' }));
  }
} else {
  const bare = currentRss();
  const s = await startBenchSluice({ SLUICE_QUERY_WORKERS: query, SLUICE_READ_WORKERS: read ?? query });
  await new Promise((r) => setTimeout(r, 3000));
  const rest = currentRss();
  await submitAndWait(s, { sql: 'SELECT 1', materialize: 'never' });
  await new Promise((r) => setTimeout(r, 500));
  const warm = currentRss();
  console.log(`query workers ${query}, read workers ${read}: process before start ${mb(bare)}, server at rest ${mb(rest)} (+${mb(rest - bare)}), after a first query ${mb(warm)} (+${mb(warm - rest)})`);
  await s.stop();
  process.exit(0);
}
