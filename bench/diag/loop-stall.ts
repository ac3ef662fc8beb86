/**
 * Is the API's event loop blocked during an export, or only starved of CPU?
 * Runs the same 10 ms timer-gap sampler (a) in the process hosting the API
 * and (b) in a separate, otherwise idle process, during one export, and (c)
 * in that separate process with no export at all (the machine's own noise).
 * Stalls that (b) sees as well are scheduling delays on a busy machine, not
 * work on the API's thread.
 *
 *   npx tsx bench/diag/loop-stall.ts [rows=5000000] [burn=0]
 * burn: that many busy-looping processes during the export, standing in for
 * other work on a shared machine.
 */
import { spawn } from 'node:child_process';
import { sampleLoopGaps } from '../lib/loop-gap.ts';
import { runExport, startBenchSluice, submitAndWait } from '../lib/sluice.ts';
import { exportSql } from '../lib/tables.ts';

const rows = Number(process.argv[2] ?? 5_000_000);
const burn = Number(process.argv[3] ?? 0);
const SAMPLER = `
  let last = performance.now(), max = 0, n = 0; const gaps = [];
  const t = setInterval(() => { const now = performance.now(); const g = now - last - 10; gaps.push(g); max = Math.max(max, g); last = now; }, 10);
  process.stdin.on('data', () => { clearInterval(t); gaps.sort((a, b) => a - b);
    console.log(JSON.stringify({ max, p99: gaps[Math.floor(gaps.length * 0.99)], over50: gaps.filter((g) => g > 50).length, n: gaps.length })); process.exit(0); });
`;

async function outsideSampler(during: () => Promise<unknown>): Promise<string> {
  const child = spawn(process.execPath, ['-e', SAMPLER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((r) => setTimeout(r, 300));
  await during();
  child.stdin.write('stop\n');
  await new Promise((r) => child.once('close', r));
  return out.trim();
}

function describe(label: string, r: { max: number; p99: number; over50?: number }): void {
  console.log(`${label.padEnd(58)} max ${r.max.toFixed(0).padStart(5)} ms  p99 ${r.p99.toFixed(0).padStart(4)} ms${r.over50 !== undefined ? `  gaps > 50 ms: ${r.over50}` : ''}`);
}

const idle = JSON.parse(await outsideSampler(() => new Promise((r) => setTimeout(r, 5000)))) as { max: number; p99: number; over50: number };
describe('(c) separate process, no export (5 s)', idle);
const s = await startBenchSluice();
try {
  await submitAndWait(s, { sql: 'SELECT 1', materialize: 'never' });
  const burners = Array.from({ length: burn }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  if (burn > 0) console.log(`${burn} busy-looping processes run during the export`);
  let inside = { maxMs: 0, p99Ms: 0 };
  const outside = JSON.parse(
    await outsideSampler(async () => {
      const gaps = sampleLoopGaps(10);
      const t = await runExport(s, exportSql(rows));
      inside = gaps.stop();
      console.log(`export of ${rows} rows: ${(t.totalMs / 1000).toFixed(2)} s`);
    }),
  ) as { max: number; p99: number; over50: number };
  for (const b of burners) b.kill();
  describe('(a) the process hosting the API, during the export', { max: inside.maxMs, p99: inside.p99Ms });
  describe('(b) separate process, during the export', outside);
} finally {
  await s.stop();
}
