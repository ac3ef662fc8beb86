/**
 * Pages nobody asked for before, and a restart's first read (the `pages` part).
 *
 * Distinct pages: five artifacts of 2M rows × 7 columns; a cursor every
 * 1,000 rows of each (about 10,000 in all, signed with the server's cursor
 * key exactly as the read route signs nextCursor: the same bytes a reader
 * paging through with limit 1000 collects); a freshly started server over
 * that data dir then serves each cursor exactly once, in an order that jumps
 * across artifacts and row groups, as 99-row pages at 50 connections
 * (autocannon), with the API thread's event-loop stalls sampled meanwhile.
 * Beside it, in the same run: the repeated page (one cursor page asked again
 * and again, answered from the page cache) and DuckDB direct (one connection
 * in this process reading 99-row pages at the same offsets of the same
 * Parquet parts).
 *
 * Restart first read: the server is restarted over the same data dir, and
 * the first sorted read of the artifact read last before it is timed,
 * against the same sorted read once warm but not in the page cache (another
 * limit), in several rounds; the ratio is the figure.
 *
 * BENCH_PAGES_ROWS scales every artifact down for quick iteration (the
 * recorded figure uses the default, 2,000,000); BENCH_PAGES_ONLY=restart or
 * =distinct runs one half (the other half's rows then read n/a).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { CursorCodec, readShape } from '../src/artifacts/cursor.ts';
import { quoteLiteral } from '../src/columns/column-plan.ts';
import type { Row, Section } from './lib/report.ts';
import { compiled, runChild } from './lib/child.ts';
import { sampleLoopGaps } from './lib/loop-gap.ts';
import { partFiles } from './lib/part-files.ts';
import { median, ms, ratio, spread } from './lib/stats.ts';
import { PRINCIPAL, runExport, startBenchSluice, TOKEN, type BenchSluice } from './lib/sluice.ts';

const CONNECTIONS = 50;
const ARTIFACTS = 5;
const ROWS = Number(process.env.BENCH_PAGES_ROWS ?? 2_000_000);
const CURSOR_EVERY = 1000;
const PAGE = 99;
const REPEAT_SECONDS = 5;
const DUCK_SECONDS = 5;
const RESTART_ROUNDS = 8;
const PAGES_PER_SECOND = 1000;
const P99_MS = 250;
const STALL_MS = 50;
const RESTART_RATIO = 2;
const ONLY = process.env.BENCH_PAGES_ONLY;
const NOTHING: Load = { rps: Number.NaN, p99: Number.NaN, requests: 0, bad: 0, stallMaxMs: Number.NaN, stallP99Ms: Number.NaN };

const HEADERS = { 'x-token': TOKEN, 'content-type': 'application/json' };
/** The restart's sorted read: a full sort of the artifact (score has 1000 values; ties keep row order). */
const SORT = [{ column: 'score', direction: 'desc' }];

function sourceSql(k: number): string {
  const from = k * 10_000_000 + 1;
  return `select g::int8 as id, md5(g::text) as h, (g % 1000)::int4 as score, now()::timestamptz as at, (g * 0.5)::float8 as x, (g % 7 = 0) as flag, ('name-' || (g % 5000))::text as label from generate_series(${from}, ${from + ROWS - 1}) g`;
}

/** Cursors every CURSOR_EVERY rows of each artifact, ordered to jump: artifacts in turn, and within each a stride coprime with its count. */
function jumpingCursors(codec: CursorCodec, artifacts: string[]): { artifact: string; cursor: string; offset: number }[] {
  const perArtifact = Math.floor((ROWS - PAGE) / CURSOR_EVERY);
  const stride = strideFor(perArtifact);
  const out: { artifact: string; cursor: string; offset: number }[] = [];
  for (let i = 0; i < perArtifact; i++) {
    for (const [k, artifact] of artifacts.entries()) {
      // Each artifact walks its pages in its own order, so neighbours in time are far apart in rows too.
      const offset = (((i * stride + k * 37) % perArtifact) + 1) * CURSOR_EVERY;
      out.push({ artifact, offset, cursor: codec.encode(artifact, PRINCIPAL, readShape({}), offset) });
    }
  }
  return out;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** A stride of about a third of n that is coprime with n, so i*stride mod n visits every page once. */
function strideFor(n: number): number {
  let stride = Math.max(1, Math.floor(n / 3) + 1);
  while (gcd(stride, n) !== 1) stride++;
  return stride;
}

interface Load {
  rps: number;
  p99: number;
  requests: number;
  bad: number;
  stallMaxMs: number;
  stallP99Ms: number;
}

const LOAD_CHILD = new URL('./load-child.ts', import.meta.url).pathname;

/** A load as load-child.ts runs it: each request once in order (`amount`), or the first one for `duration` seconds. */
interface LoadSpec {
  url: string;
  requests: { path: string; body: string }[];
  amount?: number;
  duration?: number;
}

/**
 * Runs a load from a process of its own (load-child.ts) while this process, which hosts the server, samples
 * its event loop: autocannon on the server's loop spent the server's thread on its own work, and its pauses
 * counted as the server's stalls (making its 50 clients alone blocked the loop for about 110 ms).
 */
async function runLoad(dataDir: string, spec: LoadSpec): Promise<Load> {
  const file = join(dataDir, 'bench-load.json');
  writeFileSync(file, JSON.stringify({ connections: CONNECTIONS, headers: HEADERS, ...spec }));
  // Compiled before the sampler starts: the first build of the bench's children runs on this thread (its file walk and copies).
  await compiled(LOAD_CHILD);
  const gaps = sampleLoopGaps();
  try {
    const result = await runChild<{ rps: number; p99: number; requests: number; bad: number }>(LOAD_CHILD, [file], { timeoutMs: 1_800_000 });
    const stalls = gaps.stop();
    return { ...result, stallMaxMs: stalls.maxMs, stallP99Ms: stalls.p99Ms };
  } finally {
    rmSync(file, { force: true });
  }
}

/** Serves every cursor exactly once at CONNECTIONS connections; pages/s is requests over the whole run. */
function distinctPages(s: BenchSluice, dataDir: string, cursors: { artifact: string; cursor: string }[]): Promise<Load> {
  const requests = cursors.map((page) => ({ path: `/api/artifacts/${page.artifact}/read`, body: JSON.stringify({ limit: PAGE, cursor: page.cursor }) }));
  return runLoad(dataDir, { url: s.sluice.url, amount: cursors.length, requests });
}

async function timed(fn: () => Promise<{ status: number; body: unknown }>): Promise<number> {
  const t0 = performance.now();
  const answer = await fn();
  const took = performance.now() - t0;
  if (answer.status !== 200) throw new Error(`pages: a read answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  return took;
}

/** DuckDB direct: 99-row pages at the cursors' offsets, each within the part that holds it, for DUCK_SECONDS. */
async function duckPages(files: string[], offsets: number[], partRows: number): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const duck = await instance.connect();
  try {
    await duck.run("SET TimeZone = 'UTC'");
    const end = performance.now() + DUCK_SECONDS * 1000;
    const t0 = performance.now();
    let n = 0;
    while (performance.now() < end) {
      const offset = offsets[n % offsets.length]!;
      const file = files[n % files.length]!;
      await duck.runAndReadAll(`SELECT * FROM read_parquet(${quoteLiteral(file)}) LIMIT ${PAGE} OFFSET ${offset % Math.max(1, partRows - PAGE)}`);
      n++;
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    duck.closeSync();
    instance.closeSync();
  }
}

export async function pagesSection(log: (line: string) => void): Promise<Section> {
  const dataDir = mkdtempSync(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'sluice-bench-pages-'));
  let s = await startBenchSluice({}, { reuse: { dataDir } });
  try {
    const artifacts: string[] = [];
    let sizeBytes = 0;
    for (let k = 0; k < ARTIFACTS; k++) {
      log(`pages: exporting artifact ${k + 1}/${ARTIFACTS} (${ROWS.toLocaleString('en-US')} rows × 7 columns)`);
      const made = await runExport(s, sourceSql(k));
      if (made.rows !== ROWS) throw new Error(`pages: the artifact holds ${made.rows} rows`);
      artifacts.push(made.artifactId);
      sizeBytes += made.sizeBytes;
    }
    const codec = new CursorCodec(s.cursorKey);
    const cursors = jumpingCursors(codec, artifacts);
    const files = partFiles(dataDir);
    const partRows = Math.ceil(ROWS / (files.length / ARTIFACTS));
    await s.stop();

    log(`pages: fresh server, ${cursors.length.toLocaleString('en-US')} distinct ${PAGE}-row pages at ${CONNECTIONS} connections`);
    s = await startBenchSluice({}, { reuse: { dataDir } });
    const distinct = ONLY === 'restart' ? NOTHING : await distinctPages(s, dataDir, cursors);

    log('pages: the repeated page');
    const one = cursors[cursors.length >> 1]!;
    const repeated =
      ONLY === 'restart'
        ? NOTHING
        : await runLoad(dataDir, { url: s.sluice.url, duration: REPEAT_SECONDS, requests: [{ path: `/api/artifacts/${one.artifact}/read`, body: JSON.stringify({ limit: PAGE, cursor: one.cursor }) }] });

    log('pages: DuckDB direct, one connection');
    const duck = ONLY === 'restart' ? Number.NaN : await duckPages(files, cursors.map((c) => c.offset), partRows);

    // The restart: the artifact read last before each restart is the one read first after it.
    const target = artifacts[0]!;
    const sorted = (limit: number) => () => s.api('POST', `/api/artifacts/${target}/read`, { limit, sort: SORT });
    await timed(sorted(100));
    const atOnce: number[] = [];
    const first: number[] = [];
    const warm: number[] = [];
    const other = artifacts[ARTIFACTS - 1]!;
    for (let round = 1; round <= (ONLY === 'distinct' ? 0 : RESTART_ROUNDS); round++) {
      await s.stop();
      s = await startBenchSluice({}, { reuse: { dataDir } });
      // Every other round the sorted read is the server's very first (it also waits for a read worker
      // to load); in the rest a one-row page of another artifact comes first, so the figure is the artifact's.
      if (round % 2 === 1) await timed(() => s.api('POST', `/api/artifacts/${other}/read`, { limit: 1 }));
      // Another limit in every read: none is answered from the page cache.
      (round % 2 === 1 ? first : atOnce).push(await timed(sorted(100 + round)));
      warm.push(await timed(sorted(200 + round)));
      warm.push(await timed(sorted(300 + round)));
      log(`pages: restart ${round}/${RESTART_ROUNDS}: ${round % 2 === 1 ? 'first sorted read of the artifact' : "the server's first read, sorted"} ${ms((round % 2 === 1 ? first : atOnce).at(-1)!)}, warm uncached ${ms(warm.at(-2)!)}, ${ms(warm.at(-1)!)}`);
    }
    const restartRatio = median(first) / median(warm);

    const rows: Row[] = [
      {
        figure: `Distinct pages (${PAGE} rows, each served once, fresh server): pages/s (p99) at ${CONNECTIONS} connections`,
        target: `≥ ${PAGES_PER_SECOND}/s, p99 ≤ ${P99_MS} ms`,
        measured: `${distinct.rps.toFixed(0)}/s, p99 ${distinct.p99} ms`,
        held: distinct.rps >= PAGES_PER_SECOND && distinct.p99 <= P99_MS && distinct.bad === 0,
      },
      { figure: 'Distinct pages: API event-loop stalls (max, p99)', target: `≤ ${STALL_MS} ms`, measured: `${ms(distinct.stallMaxMs)}, p99 ${ms(distinct.stallP99Ms)}`, held: distinct.stallMaxMs <= STALL_MS },
      { figure: 'Distinct pages ÷ DuckDB direct (same offsets, one connection)', target: '(info)', measured: `${ratio(distinct.rps / duck)} (${distinct.rps.toFixed(0)} vs ${duck.toFixed(0)}/s)`, held: null },
      { figure: 'Distinct pages ÷ the repeated page', target: '(info)', measured: `${ratio(distinct.rps / repeated.rps)} (repeated ${repeated.rps.toFixed(0)}/s, p99 ${repeated.p99} ms)`, held: null },
      {
        figure: 'Restart: first sorted read ÷ a warm uncached one',
        target: `≤ ${RESTART_RATIO}×`,
        measured: `${ratio(restartRatio)} (${ms(median(first))} vs ${ms(median(warm))})`,
        held: restartRatio <= RESTART_RATIO,
      },
      { figure: "Restart: the server's first read (sorted) ÷ a warm uncached one", target: '(info)', measured: `${ratio(median(atOnce) / median(warm))} (${ms(median(atOnce))})`, held: null },
      { figure: 'Errors and non-2xx answers', target: 'none', measured: `${distinct.bad + repeated.bad}`, held: distinct.bad + repeated.bad === 0 },
    ];
    return {
      title: `Pages never served before, and a restart's first read (${ARTIFACTS} artifacts of ${ROWS.toLocaleString('en-US')} rows × 7 columns)`,
      rows,
      notes: [
        `Artifacts: ${ARTIFACTS} × ${ROWS.toLocaleString('en-US')} rows in ${files.length} Parquet parts, ${(sizeBytes / 1024 / 1024).toFixed(0)} MB in all. ${cursors.length.toLocaleString('en-US')} cursors ${CURSOR_EVERY} rows apart, served once each (${distinct.requests} requests answered) in an order that takes the artifacts in turn and strides about a third of an artifact between one page of it and its next.`,
        `Distinct pages: ${distinct.rps.toFixed(0)}/s over the whole run, p99 ${distinct.p99} ms; event-loop stalls max ${ms(distinct.stallMaxMs)}, p99 ${ms(distinct.stallP99Ms)}. Repeated page: ${repeated.rps.toFixed(0)}/s, p99 ${repeated.p99} ms (${REPEAT_SECONDS} s). DuckDB direct (this process, threads=2, one connection, ${DUCK_SECONDS} s, LIMIT ${PAGE} OFFSET within one part, parts in turn): ${duck.toFixed(0)}/s.`,
        `Restart (${RESTART_ROUNDS} rounds, sort by score desc over the whole artifact, the artifact read last before the restart): first sorted read of the artifact after a one-row page of another ${spread(first)}; the server's first read, sorted (it waits for a read worker to load too) ${spread(atOnce)}; warm uncached ${spread(warm)}. autocannon runs in a process of its own (bench/load-child.ts); Sluice in this one, whose event loop the stalls are of.`,
      ],
    };
  } finally {
    await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// Run on its own: `npx tsx bench/pages.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { runParts } = await import('./lib/run-parts.ts');
  process.exit((await runParts([['pages', pagesSection]], 'npx tsx bench/pages.ts')) ? 0 : 1);
}
