/**
 * CPU time of one export from the kinds bench's folder datasource, thread by
 * thread (the API's main thread, the worker threads, DuckDB's and libuv's
 * threads): which thread serialises the folder export.
 *
 *   npx tsx bench/diag/folder-threads.ts [rows=1000000] [repeats=3]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { ensureKindSources, KIND_DATASOURCES, kindSql } from '../lib/kind-sources.ts';
import { startBenchSluice, submitAndWait } from '../lib/sluice.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
const repeats = Number(process.argv[3] ?? 3);
const TICK = 100; // USER_HZ

function threadTimes(): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name, cpu: (Number(fields[11]) + Number(fields[12])) / TICK });
    } catch {
      // The thread ended.
    }
  }
  return out;
}

await ensureKindSources(() => undefined, ['folder']);
const s = await startBenchSluice({ SLUICE_DATASOURCES: JSON.stringify(KIND_DATASOURCES) });
try {
  await submitAndWait(s, { sql: 'SELECT 1 AS one', datasource: 'folder', materialize: 'never' });
  for (let i = 0; i < repeats; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const before = threadTimes();
    const { totalMs } = await submitAndWait(s, { sql: kindSql(rows), datasource: 'folder', materialize: 'always' });
    const after = threadTimes();
    const busy: { tid: string; name: string; cpu: number }[] = [];
    for (const [tid, a] of after) {
      const cpu = a.cpu - (before.get(tid)?.cpu ?? 0);
      if (cpu >= 0.02) busy.push({ tid: tid === String(process.pid) ? `${tid} (main)` : tid, name: a.name, cpu });
    }
    busy.sort((x, y) => y.cpu - x.cpu);
    const total = busy.reduce((sum, r) => sum + r.cpu, 0);
    console.log(`export ${i + 1} of ${rows} rows: wall ${(totalMs / 1000).toFixed(2)} s, cpu ${total.toFixed(2)} s`);
    for (const r of busy) console.log(`  ${r.tid.padEnd(14)} ${r.name.padEnd(18)} ${r.cpu.toFixed(2)} s`);
  }
} finally {
  await s.stop();
}
