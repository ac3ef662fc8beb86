/**
 * Where the CPU of pages never read before goes, by thread: one 2M-row
 * artifact (7 columns, as bench/pages.ts makes them), a fresh server over
 * it, then distinct 99-row cursor pages at 50 connections; each of the
 * process's threads' CPU (/proc/self/task: the main thread, the read
 * workers', the libuv pool's where @duckdb/node-api runs statements, and
 * DuckDB's own) divided by the pages served, those above 0.05 ms a page.
 * CPU time, not wall time, so the split holds on a loaded machine.
 *
 * ORDER=thirds walks the cursors as bench/pages.ts walks one artifact (a
 * stride of about a third of it, so a row group comes back every third
 * page); the default jumps 7919 cursors at a time.
 *
 *   [ORDER=thirds] npx tsx bench/diag/page-cpu.ts [pages=3000]
 */
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { CursorCodec, readShape } from '../../src/artifacts/cursor.ts';
import { PRINCIPAL, runExport, startBenchSluice, TOKEN } from '../lib/sluice.ts';

const ROWS = 2_000_000;
const PAGES = Number(process.argv[2] ?? 3000);
const CURSORS = ROWS / 1000 - 1;
const STRIDE = process.env.ORDER === 'thirds' ? Math.floor(CURSORS / 3) + 1 : 7919;

function threadTicks(): Map<string, number> {
  const byThread = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))} ${tid}`;
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      byThread.set(name, (byThread.get(name) ?? 0) + Number(fields[11]) + Number(fields[12]));
    } catch {
      // gone
    }
  }
  return byThread;
}

let s = await startBenchSluice();
const dataDir = s.dataDir;
const made = await runExport(s, `select g::int8 as id, md5(g::text) as h, (g % 1000)::int4 as score, now()::timestamptz as at, (g * 0.5)::float8 as x, (g % 7 = 0) as flag, ('name-' || (g % 5000))::text as label from generate_series(1, ${ROWS}) g`);
await s.sluice.stop();
s = await startBenchSluice({}, { reuse: { dataDir } });
try {
  const codec = new CursorCodec(s.cursorKey);
  // Hash every part first: the figure is the page, not the first check.
  await s.api('POST', `/api/artifacts/${made.artifactId}/aggregate`, { metrics: [{ fn: 'count' }] });
  const before = threadTicks();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  const result = await autocannon({
    url: s.sluice.url,
    connections: 50,
    amount: PAGES,
    method: 'POST',
    headers: { 'x-token': TOKEN, 'content-type': 'application/json' },
    timeout: 120,
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: `/api/artifacts/${made.artifactId}/read`, body: JSON.stringify({ limit: 99, cursor: codec.encode(made.artifactId, PRINCIPAL, readShape({}), ((next++ * STRIDE) % CURSORS + 1) * 1000) }) }) }] as never,
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const after = threadTicks();
  console.log(`${result.requests.total} pages in ${seconds.toFixed(1)} s: ${(result.requests.total / seconds).toFixed(0)}/s, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx; process CPU ${((cpu.user + cpu.system) / 1000 / result.requests.total).toFixed(2)} ms a page; RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB after them`);
  for (const [name, ticks] of [...after].sort((a, b) => b[1] - a[1])) {
    const spent = ticks - (before.get(name) ?? 0);
    if (spent * 10 > result.requests.total * 0.05) console.log(`  ${name.padEnd(20)} ${((spent * 10) / result.requests.total).toFixed(2)} ms a page`);
  }
} finally {
  await s.stop();
}
