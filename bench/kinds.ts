/**
 * The kinds figures: Sluice exporting 1M rows × 6 columns from MariaDB, a
 * SQLite file and a folder of Parquet, each against its own engine's dump
 * in the same run: `mariadb --quick --batch -e 'SELECT …' > /dev/null`,
 * `sqlite3 -csv file.db 'SELECT …' > /dev/null`, and (folders have no
 * command-line client here) DuckDB in a process of its own writing the same
 * file as CSV to /dev/null. A 250k-row export of each kind shows whether
 * peak RSS grows with rows. Runs are interleaved round by round.
 */
import { fileURLToPath } from 'node:url';
import { runChild, timeShell } from './lib/child.ts';
import { ensureKindSources, KIND_ROWS, kindSql, MARIADB_ARGS, SQLITE_FILE } from './lib/kind-sources.ts';
import type { Row, Section } from './lib/report.ts';
import { mb, median, ms, ratio, spread } from './lib/stats.ts';

const CHILD = fileURLToPath(new URL('./kinds-child.ts', import.meta.url));
const SMALL = 250_000;

interface SluiceRun {
  totalMs: number;
  peakRssBytes: number;
  rssBeforeBytes: number;
  loopMaxMs: number;
}

interface Kind {
  name: string;
  datasource: string;
  baselineLabel: string;
  baseline(): Promise<number>;
}

const ALL_KINDS: Kind[] = [
  {
    name: 'MariaDB',
    datasource: 'maria',
    baselineLabel: 'mariadb --quick --batch',
    baseline: () => timeShell(`mariadb ${MARIADB_ARGS.join(' ')} --quick --batch bench -e '${kindSql(KIND_ROWS)}' > /dev/null`),
  },
  {
    name: 'SQLite',
    datasource: 'lite',
    baselineLabel: 'sqlite3 -csv',
    baseline: () => timeShell(`sqlite3 -csv '${SQLITE_FILE}' '${kindSql(KIND_ROWS)}' > /dev/null`),
  },
  {
    name: 'Folder of Parquet',
    datasource: 'folder',
    baselineLabel: 'DuckDB COPY … TO /dev/null (CSV)',
    baseline: async () => (await child<{ totalMs: number }>(['duckdb', String(KIND_ROWS)])).totalMs,
  },
];

/** A child's result; one that says it failed stops the part (a figure is never made of failures). */
async function child<T>(args: string[]): Promise<T> {
  const result = await runChild<T & { error?: string }>(CHILD, args);
  if (result.error !== undefined) throw new Error(`kinds-child ${args.join(' ')}: ${result.error}`);
  return result;
}

async function sluiceRun(kind: Kind, rows: number): Promise<SluiceRun> {
  return child<SluiceRun>(['sluice', kind.datasource, String(rows)]);
}

function kindRows(kind: Kind, baseline: number[], big: SluiceRun[], small: SluiceRun[]): Row[] {
  const base = median(baseline);
  const sluice = median(big.map((r) => r.totalMs));
  const throughput = base / sluice;
  const rssBig = median(big.map((r) => r.peakRssBytes));
  const rssSmall = median(small.map((r) => r.peakRssBytes));
  const stall = Math.max(...[...big, ...small].map((r) => r.loopMaxMs));
  return [
    {
      figure: `${kind.name}: export throughput, 1M rows (Sluice ÷ ${kind.baselineLabel})`,
      target: '≥ 0.50× (aim 0.80×)',
      measured: `${ratio(throughput)} (${ms(sluice)} vs ${ms(base)})`,
      held: throughput >= 0.5,
    },
    {
      figure: `${kind.name}: peak RSS, 1M ÷ 250k rows`,
      target: 'flat (≤ 1.20×)',
      measured: `${ratio(rssBig / rssSmall)} (${mb(rssBig)} vs ${mb(rssSmall)})`,
      held: rssBig / rssSmall <= 1.2,
    },
    {
      figure: `${kind.name}: API event-loop max stall during the exports`,
      target: '≤ 50 ms',
      measured: ms(stall),
      held: stall <= 50,
    },
  ];
}

/** `BENCH_KINDS=folder` (or `maria,lite`) runs only those datasources' kinds; all of them when unset. */
function selectedKinds(): Kind[] {
  const wanted = process.env.BENCH_KINDS?.split(',').map((k) => k.trim()).filter((k) => k !== '');
  if (wanted === undefined || wanted.length === 0) return ALL_KINDS;
  const unknown = wanted.filter((w) => !ALL_KINDS.some((k) => k.datasource === w));
  if (unknown.length > 0) throw new Error(`BENCH_KINDS names ${unknown.join(', ')}; use ${ALL_KINDS.map((k) => k.datasource).join(', ')}`);
  return ALL_KINDS.filter((k) => wanted.includes(k.datasource));
}

export async function kindsSection(log: (line: string) => void, rounds = 3): Promise<Section> {
  const KINDS = selectedKinds();
  await ensureKindSources(log, KINDS.map((k) => k.datasource));
  const baseline = new Map<string, number[]>(KINDS.map((k) => [k.name, []]));
  const big = new Map<string, SluiceRun[]>(KINDS.map((k) => [k.name, []]));
  const small = new Map<string, SluiceRun[]>(KINDS.map((k) => [k.name, []]));
  const steps: [string, () => Promise<string>][] = KINDS.flatMap((kind) => [
    [`${kind.name} ${kind.baselineLabel}`, async () => ms(baseline.get(kind.name)![baseline.get(kind.name)!.push(await kind.baseline()) - 1]!)],
    [`${kind.name} sluice 1M`, async () => describe(big.get(kind.name)!, await sluiceRun(kind, KIND_ROWS))],
    [`${kind.name} sluice 250k`, async () => describe(small.get(kind.name)!, await sluiceRun(kind, SMALL))],
  ]);
  for (const kind of KINDS) await kind.baseline();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < steps.length; i++) {
      const [name, step] = steps[(i + round * 3) % steps.length]!;
      log(`  round ${round + 1}/${rounds} ${name}: ${await step()}`);
    }
  }
  const rows = KINDS.flatMap((k) => kindRows(k, baseline.get(k.name)!, big.get(k.name)!, small.get(k.name)!));
  const notes = KINDS.map(
    (k) => `${k.name}: ${k.baselineLabel} ${spread(baseline.get(k.name)!)}; Sluice 1M ${spread(big.get(k.name)!.map((r) => r.totalMs))}; 250k ${spread(small.get(k.name)!.map((r) => r.totalMs))}.`,
  );
  return { title: `Datasource kinds (1,000,000 rows × 6 columns from ${KINDS.map((k) => k.name).join(', ')})`, rows, notes };
}

function describe(into: SluiceRun[], run: SluiceRun): string {
  into.push(run);
  return `${ms(run.totalMs)} (peak ${mb(run.peakRssBytes)}, stall ${ms(run.loopMaxMs)})`;
}
