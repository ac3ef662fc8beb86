/**
 * CPU time of one Sluice export, thread by thread: every thread of this
 * process (/proc/self/task: the API's main thread, the worker threads,
 * DuckDB's threads, libuv's pool) and the PostgreSQL backend serving the
 * export (found by application_name 'sluice'). Shows which thread is the
 * bottleneck: the busiest thread's CPU time close to the wall time means
 * that thread serialises the export.
 *
 *   npx tsx bench/diag/export-threads.ts [rows=5000000]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { openAdminSql } from '../../test/helpers/admin-sql.ts';
import { runExport, startBenchSluice, submitAndWait } from '../lib/sluice.ts';
import { DATABASE_URL, exportSql } from '../lib/tables.ts';

const rows = Number(process.argv[2] ?? 5_000_000);
const TICK = 100; // USER_HZ

function threadTimes(pid: number | 'self'): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name, cpu: (Number(fields[11]) + Number(fields[12])) / TICK });
    } catch {
      // The thread ended.
    }
  }
  return out;
}

function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK;
}

const s = await startBenchSluice();
const sql = openAdminSql(DATABASE_URL);
try {
  await submitAndWait(s, { sql: 'SELECT 1', materialize: 'never' });
  const [backend] = await sql.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'sluice' ORDER BY backend_start DESC LIMIT 1");
  const before = threadTimes('self');
  const pgBefore = backend ? processCpu(backend.pid) : 0;
  const t = await runExport(s, exportSql(rows));
  const after = threadTimes('self');
  const pgAfter = backend ? processCpu(backend.pid) : 0;
  const mainTid = String(process.pid);
  const rowsOut: { tid: string; name: string; cpu: number }[] = [];
  for (const [tid, a] of after) {
    const cpu = a.cpu - (before.get(tid)?.cpu ?? 0);
    if (cpu >= 0.05) rowsOut.push({ tid: tid === mainTid ? `${tid} (main)` : tid, name: a.name, cpu });
  }
  rowsOut.sort((x, y) => y.cpu - x.cpu);
  console.log(`export of ${rows} rows: wall ${(t.totalMs / 1000).toFixed(2)} s (preview ${t.previewMs.toFixed(0)} ms)`);
  console.log(`PostgreSQL backend ${backend?.pid ?? '?'}: cpu ${(pgAfter - pgBefore).toFixed(2)} s`);
  const total = rowsOut.reduce((sum, r) => sum + r.cpu, 0);
  console.log(`this process: cpu ${total.toFixed(2)} s over ${rowsOut.length} busy threads`);
  for (const r of rowsOut) console.log(`  ${r.tid.padEnd(14)} ${r.name.padEnd(18)} ${r.cpu.toFixed(2)} s`);
} finally {
  await sql.end();
  await s.stop();
}
