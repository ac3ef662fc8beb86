/**
 * The export figures: Sluice exporting a 5M-row result (and a 1M-row one,
 * for memory growth) against psql's COPY CSV to /dev/null (the baseline: one
 * backend's practical limit) and against the straightforward node-postgres
 * approach. Each Sluice and peer run is a child process of its own; runs are
 * interleaved round by round after one warm-up COPY.
 */
import { fileURLToPath } from 'node:url';
import { runChild, timeShell } from './lib/child.ts';
import type { Row, Section } from './lib/report.ts';
import { mb, median, ms, ratio, spread } from './lib/stats.ts';
import { ensureTable } from './lib/tables.ts';

const CHILD = fileURLToPath(new URL('./export-child.ts', import.meta.url));

interface SluiceRun {
  totalMs: number;
  previewMs: number;
  coldPreviewMs: number;
  acceptedMs: number;
  rows: number;
  sizeBytes: number;
  rssBeforeBytes: number;
  peakRssBytes: number;
  loopMaxMs: number;
  loopP99Ms: number;
  /** CPU seconds of the Sluice process (all its threads) during the export, and of the PostgreSQL backends serving it. */
  cpuSeconds: number;
  pgCpuSeconds: number;
  pgBackends: number;
}

interface PeerRun {
  rows: number;
  fetchMs: number;
  totalMs: number;
  sizeBytes: number;
  failure: string | null;
  peakRssBytes: number;
  loopMaxMs: number;
}

function copyCommand(rows: number): string {
  const select = rows >= 5_000_000 ? 'select * from bench.rows_5m' : `select * from bench.rows_5m where id <= ${rows}`;
  return `psql -X -q -h 127.0.0.1 -U postgres -d test -c "COPY (${select}) TO STDOUT (FORMAT csv)" > /dev/null`;
}

export async function exportSection(log: (line: string) => void, rounds = 3): Promise<Section> {
  await ensureTable('rows_5m', 5_000_000, log);
  const copy5: number[] = [];
  const copy1: number[] = [];
  const sluice5: SluiceRun[] = [];
  const sluice1: SluiceRun[] = [];
  const peer: PeerRun[] = [];

  log('export: warm-up COPY');
  await timeShell(copyCommand(5_000_000));
  const steps: Record<string, () => Promise<string>> = {
    'copy 5M': async () => ms(copy5[copy5.push(await timeShell(copyCommand(5_000_000))) - 1]!),
    'copy 1M': async () => ms(copy1[copy1.push(await timeShell(copyCommand(1_000_000))) - 1]!),
    'sluice 5M': async () => {
      const r = await runChild<SluiceRun>(CHILD, ['sluice', '5000000']);
      if (r.rows !== 5_000_000) throw new Error(`the 5M export kept ${r.rows} rows`);
      sluice5.push(r);
      return `${ms(r.totalMs)} (preview ${ms(r.previewMs)}, peak ${mb(r.peakRssBytes)}, stall ${ms(r.loopMaxMs)}, CPU ${r.cpuSeconds.toFixed(2)} s vs PostgreSQL ${r.pgCpuSeconds.toFixed(2)} s)`;
    },
    'sluice 1M': async () => {
      const r = await runChild<SluiceRun>(CHILD, ['sluice', '1000000']);
      if (r.rows !== 1_000_000) throw new Error(`the 1M export kept ${r.rows} rows`);
      sluice1.push(r);
      return `${ms(r.totalMs)} (peak ${mb(r.peakRssBytes)}, stall ${ms(r.loopMaxMs)})`;
    },
    'peer 5M': async () => {
      const r = await runChild<PeerRun>(CHILD, ['peer', '5000000'], { nodeOptions: '--max-old-space-size=8192' });
      if (r.failure !== null) throw new Error(`the peer export failed: ${r.failure}`);
      peer.push(r);
      return `${ms(r.totalMs)} (fetch ${ms(r.fetchMs)}, peak ${mb(r.peakRssBytes)}, stall ${ms(r.loopMaxMs)})`;
    },
  };
  const names = Object.keys(steps);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      log(`  round ${round + 1}/${rounds} ${name}: ${await steps[name]!()}`);
    }
  }
  log('  peer 5M with one JSON.stringify of the whole result (once)');
  const literal = await runChild<PeerRun>(CHILD, ['peer-literal', '5000000'], { nodeOptions: '--max-old-space-size=8192' });
  log(`    ${literal.failure ?? `ok in ${ms(literal.totalMs)}`}`);

  const copy5Ms = median(copy5);
  const copy1Ms = median(copy1);
  const s5 = median(sluice5.map((r) => r.totalMs));
  const s1 = median(sluice1.map((r) => r.totalMs));
  const peerMs = median(peer.map((r) => r.totalMs));
  const throughput = copy5Ms / s5;
  const stall5 = Math.max(...sluice5.map((r) => r.loopMaxMs));
  const stall1 = Math.max(...sluice1.map((r) => r.loopMaxMs));
  const rss5 = median(sluice5.map((r) => r.peakRssBytes));
  const rss1 = median(sluice1.map((r) => r.peakRssBytes));
  const rssMax = Math.max(...[...sluice5, ...sluice1].map((r) => r.peakRssBytes));
  const preview = median(sluice5.map((r) => r.previewMs));
  const previewMax = Math.max(...[...sluice5, ...sluice1].map((r) => r.previewMs));
  const cold = median([...sluice5, ...sluice1].map((r) => r.coldPreviewMs));
  const cpuRatios = sluice5.map((r) => r.cpuSeconds / r.pgCpuSeconds);
  const cpuRatio = median(cpuRatios);
  const rowsPerS = (n: number, t: number) => `${((n / t) * 1000 / 1e6).toFixed(2)}M rows/s`;

  const rows: Row[] = [
    {
      figure: 'Export throughput, 5M rows (Sluice ÷ COPY CSV)',
      target: '≥ 0.90×',
      measured: `${ratio(throughput)} (${ms(s5)} vs ${ms(copy5Ms)})`,
      held: throughput >= 0.9,
    },
    {
      figure: 'Export CPU, 5M rows (Sluice process CPU-s ÷ its PostgreSQL backend CPU-s)',
      target: '≤ 1.2×',
      measured: `${ratio(cpuRatio)} (${median(sluice5.map((r) => r.cpuSeconds)).toFixed(2)} s vs ${median(sluice5.map((r) => r.pgCpuSeconds)).toFixed(2)} s)`,
      held: cpuRatio <= 1.2,
    },
    {
      figure: 'Export throughput, 1M rows (Sluice ÷ COPY CSV)',
      target: '(info)',
      measured: `${ratio(copy1Ms / s1)} (${ms(s1)} vs ${ms(copy1Ms)})`,
      held: null,
    },
    {
      figure: 'Peer approach throughput, 5M rows (÷ COPY CSV)',
      target: '(info)',
      measured: `${ratio(copy5Ms / peerMs)} (${ms(peerMs)}); Sluice is ${ratio(peerMs / s5)} faster`,
      held: null,
    },
    {
      figure: 'API event-loop max stall during the 5M export',
      target: '≤ 50 ms',
      measured: `${ms(stall5)} (worst of ${sluice5.length} runs; per run ${sluice5.map((r) => r.loopMaxMs.toFixed(0)).join(', ')} ms)`,
      held: stall5 <= 50,
    },
    {
      figure: 'API event-loop max stall during the 1M export',
      target: '≤ 50 ms',
      measured: `${ms(stall1)} (per run ${sluice1.map((r) => r.loopMaxMs.toFixed(0)).join(', ')} ms)`,
      held: stall1 <= 50,
    },
    {
      figure: 'Peak RSS of the Sluice process, 5M export',
      target: '< 400 MB',
      measured: `${mb(rss5)} (median; before the export ${mb(median(sluice5.map((r) => r.rssBeforeBytes)))})`,
      held: rss5 < 400 * 1024 * 1024,
    },
    {
      figure: 'Peak RSS of the Sluice process, 1M export',
      target: '< 400 MB',
      measured: `${mb(rss1)} (median; before the export ${mb(median(sluice1.map((r) => r.rssBeforeBytes)))})`,
      held: rss1 < 400 * 1024 * 1024,
    },
    {
      figure: 'Peak RSS, 5M ÷ 1M',
      target: 'about the same (≤ 1.20×)',
      measured: ratio(rss5 / rss1),
      held: rss5 / rss1 <= 1.2,
    },
    {
      figure: 'Time to preview (waitMs 0), 5M export, warm server',
      target: '< 1 s',
      measured: `${ms(preview)} (worst of all runs ${ms(previewMax)}; POST answered in ${ms(median(sluice5.map((r) => r.acceptedMs)))})`,
      held: preview < 1000 && previewMax < 1000,
    },
    {
      figure: 'Time to preview, first query after server start',
      target: '< 1 s',
      measured: `${ms(cold)} (SELECT 1; worst ${ms(Math.max(...[...sluice5, ...sluice1].map((r) => r.coldPreviewMs)))})`,
      held: cold < 1000,
    },
    {
      figure: 'Peer approach: peak RSS / max stall, 5M rows',
      target: '(info)',
      measured: `${mb(median(peer.map((r) => r.peakRssBytes)))} / ${ms(Math.max(...peer.map((r) => r.loopMaxMs)))}`,
      held: null,
    },
  ];
  const notes = [
    `COPY CSV 5M (psql > /dev/null): ${spread(copy5)}; ${rowsPerS(5e6, copy5Ms)}. COPY CSV 1M: ${spread(copy1)}.`,
    `Sluice 5M, POST to SUCCEEDED: ${spread(sluice5.map((r) => r.totalMs))}; ${rowsPerS(5e6, s5)}; artifact ${mb(sluice5[0]!.sizeBytes)} of Parquet. Sluice 1M: ${spread(sluice1.map((r) => r.totalMs))}.`,
    `Peak RSS per run, 5M: ${sluice5.map((r) => mb(r.peakRssBytes)).join(', ')}; 1M: ${sluice1.map((r) => mb(r.peakRssBytes)).join(', ')}; worst ${mb(rssMax)}. The process holds the API thread and one query worker before the warm-up query; the read pool starts on the first read.`,
    `Peer (node-postgres in the main thread, buffered rows, JSON in 100k-row slices): ${spread(peer.map((r) => r.totalMs))}, of which fetching ${ms(median(peer.map((r) => r.fetchMs)))}; JSON ${mb(peer[0]!.sizeBytes)}. The literal JSON.stringify(rows) of all 5M rows: ${literal.failure ?? `succeeded in ${ms(literal.totalMs)}`} (peak RSS ${mb(literal.peakRssBytes)}, event loop stalled ${ms(literal.loopMaxMs)}).`,
    `CPU per 5M run, Sluice ÷ PostgreSQL: ${sluice5.map((r) => `${r.cpuSeconds.toFixed(2)}/${r.pgCpuSeconds.toFixed(2)} s = ${ratio(r.cpuSeconds / r.pgCpuSeconds)}`).join('; ')} (process.cpuUsage of the whole Sluice process from POST to SUCCEEDED, every thread included; the backends are those whose client port is one of the process's sockets, /proc/<pid>/stat sampled every 200 ms; backends per run ${sluice5.map((r) => r.pgBackends).join(', ')}). It does not depend on the machine's speed the way the throughput ratio does.`,
    `Stall = largest lateness of a 10 ms setInterval in the process hosting the API, from POST to SUCCEEDED (after one warm-up query); p99 lateness, 5M: ${sluice5.map((r) => r.loopP99Ms.toFixed(0)).join(', ')} ms.`,
  ];
  return { title: 'Export (5,000,000 rows × 6 columns from the local PostgreSQL)', rows, notes };
}
