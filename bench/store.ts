/**
 * The byte store's figures: the same Sluice with artifact bytes in a local
 * directory (the baseline) and in an S3-compatible bucket (s3rver in a child
 * process on 127.0.0.1, read through the local part cache), side by side in
 * one process and one run. Both keep the default SQLite catalog, so the bytes
 * are the only difference.
 *
 *  1. Export throughput: POST /api/queries (materialize 'always') of ~5M
 *     rows until the artifact is CREATED, in interleaved rounds after a
 *     warm-up round. Each round exports a slightly different row count, so
 *     no export finds its content already stored.
 *  2. A page read (limit 1000) of an artifact whose parts are cached, each
 *     at a page never read before (recent pages are kept in memory, and the
 *     point is reading the parts): sequential reads alternating between the two servers, then
 *     autocannon at CONNECTIONS connections, medians and p95 of each.
 *  3. The first read of each freshly exported artifact: on S3 bytes its
 *     parts are not in the cache yet and come from the bucket; on local
 *     bytes the parts are hashed on first use, which is shown beside it.
 *
 * `npm run bench -- store`, or `npx tsx bench/store.ts`; both append to the day's log in bench/runs/.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { PART_CACHE_DIR } from '../src/artifacts/bytes/open-byte-store.ts';
import { startS3Server, type TestS3Server } from '../test/helpers/s3-server.ts';
import { childCpuSeconds } from './lib/cpu.ts';
import type { Row, Section } from './lib/report.ts';
import { runParts } from './lib/run-parts.ts';
import { startBenchSluice, submitAndWait, TOKEN, type BenchSluice } from './lib/sluice.ts';
import { freshPages } from './lib/fresh-pages.ts';
import { mb, median, ms, percentile, ratio, spread } from './lib/stats.ts';
import { ensureTable, exportSql } from './lib/tables.ts';

const ROWS = 5_000_000;
const ROUNDS = 3;
const SEQUENTIAL_READS = 300;
const CONNECTIONS = 16;
const SECONDS = 5;
const PAGE = { limit: 1000 };
const CACHE_BYTES = 2 * 1024 ** 3;
const EXPORT_DEADLINE_MS = 300_000;
/** In the command line of test/helpers/s3-server.ts's child, and of no other child here. */
const S3RVER_MARKER = '--openssl-legacy-provider';

type Side = 'local' | 's3';
const SIDES: Side[] = ['local', 's3'];
/** Autocannon runs, balanced so a drift of the machine's load lands on both sides alike. */
const LOAD_ORDER: Side[] = ['local', 's3', 's3', 'local', 's3', 'local', 'local', 's3'];

interface ExportRun {
  /** POST until the artifact is CREATED. */
  totalMs: number;
  /** POST until every row had been received (progress.rowsWritten; polled every 100 ms). */
  rowsInMs: number;
  /** CPU seconds s3rver used meanwhile. */
  s3rverCpuS: number;
  id: string;
  sizeBytes: number;
}

function expect(condition: boolean, message: string): void {
  if (!condition) throw new Error(`store: ${message}`);
}

/** An export of `rows` rows with materialize 'always', noting when the last row arrived and when the artifact was created. */
async function exportRun(s: BenchSluice, rows: number): Promise<ExportRun> {
  const t0 = performance.now();
  const cpu0 = childCpuSeconds(S3RVER_MARKER);
  const submitted = await s.api('POST', '/api/queries', { sql: exportSql(rows), materialize: 'always', waitMs: 0 });
  expect(submitted.status === 202 || submitted.status === 200, `POST /api/queries answered ${submitted.status}`);
  let data = submitted.body.data;
  let rowsInMs = Number.NaN;
  while (data.state === 'RUNNING') {
    if (Number.isNaN(rowsInMs) && data.progress.rowsWritten >= rows) rowsInMs = performance.now() - t0;
    expect(performance.now() - t0 < EXPORT_DEADLINE_MS, `the export of ${rows} rows ran past ${EXPORT_DEADLINE_MS} ms`);
    const polled = await s.api('GET', `/api/queries/${data.queryId}?waitMs=100`);
    expect(polled.body.data !== undefined, `GET /api/queries: ${polled.status}`);
    data = polled.body.data;
  }
  const totalMs = performance.now() - t0;
  expect(data.state === 'SUCCEEDED' && data.artifact?.decision === 'CREATED', `export ended ${data.state}: ${JSON.stringify(data.artifact)}`);
  expect(data.artifact.rowCount === rows, `the artifact holds ${data.artifact.rowCount} rows, not ${rows}`);
  return { totalMs, rowsInMs: Number.isNaN(rowsInMs) ? totalMs : rowsInMs, s3rverCpuS: childCpuSeconds(S3RVER_MARKER) - cpu0, id: data.artifact.id, sizeBytes: data.artifact.sizeBytes };
}

/** Each artifact's page bodies, none a repeat, so no read is answered from the page cache instead of the parts. */
const pageBodies = new Map<string, () => { limit: number; cursor: string }>();

function nextPage(s: BenchSluice, id: string): { limit: number; cursor: string } {
  let next = pageBodies.get(id);
  if (next === undefined) pageBodies.set(id, (next = freshPages(s.cursorKey, id, ROWS - 1 - ROUNDS, PAGE.limit)));
  return next();
}

async function readPage(s: BenchSluice, id: string): Promise<number> {
  const t0 = performance.now();
  const r = await s.api('POST', `/api/artifacts/${id}/read`, nextPage(s, id));
  const elapsed = performance.now() - t0;
  expect(r.status === 200 && r.body.data.rows.length === PAGE.limit, `read of ${id} answered ${r.status} with ${r.body.data?.rows?.length} rows`);
  return elapsed;
}

/** Every response time of an autocannon run of the page read, and its totals. */
async function loadRead(s: BenchSluice, id: string): Promise<{ latencies: number[]; rps: number; bad: number }> {
  const latencies: number[] = [];
  const run = autocannon({
    url: `${s.sluice.url}/api/artifacts/${id}/read`,
    method: 'POST',
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify(nextPage(s, id)) }) }] as never,
    headers: { 'x-token': TOKEN, 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: SECONDS,
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  run.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  const result = await run;
  return { latencies, rps: result.requests.average, bad: result.errors + result.non2xx + result.timeouts };
}

/** The parts in the S3 server's cache: after the first cold read, exactly that artifact's. */
function cachedParts(dataDir: string): { count: number; bytes: number } {
  const dir = join(dataDir, PART_CACHE_DIR);
  const files = readdirSync(dir).filter((name) => name.endsWith('.parquet'));
  return { count: files.length, bytes: files.reduce((sum, name) => sum + statSync(join(dir, name)).size, 0) };
}

export async function storeSection(log: (line: string) => void): Promise<Section> {
  await ensureTable('rows_5m', ROWS, log);
  const s3: TestS3Server = await startS3Server('sluice-bench');
  const servers: Partial<Record<Side, BenchSluice>> = {};
  try {
    servers.local = await startBenchSluice();
    servers.s3 = await startBenchSluice({
      SLUICE_ARTIFACT_URL: `s3://${s3.bucket}/bench`,
      SLUICE_S3_ENDPOINT: s3.endpoint,
      SLUICE_S3_REGION: 'us-east-1',
      SLUICE_S3_FORCE_PATH_STYLE: 'true',
      SLUICE_CACHE_BYTES: String(CACHE_BYTES),
    });
    const both = servers as Record<Side, BenchSluice>;
    // Starts each server's query and read workers, so neither export nor first read pays for that.
    for (const side of SIDES) {
      const tiny = await submitAndWait(both[side], { sql: 'SELECT g::int8 AS id FROM generate_series(1, 10) g', materialize: 'always' });
      const r = await both[side].api('POST', `/api/artifacts/${tiny.data.artifact.id}/read`, { limit: 10 });
      expect(r.status === 200, `warm-up read on ${side} answered ${r.status}`);
    }
    return await measure(both, s3, log);
  } finally {
    for (const side of SIDES) await servers[side]?.stop();
    await s3.close();
  }
}

async function measure(servers: Record<Side, BenchSluice>, s3: TestS3Server, log: (line: string) => void): Promise<Section> {
  const exports: Record<Side, ExportRun[]> = { local: [], s3: [] };
  const first: Record<Side, number[]> = { local: [], s3: [] };
  const warm: Record<Side, number[]> = { local: [], s3: [] };
  let parts = { count: 0, bytes: 0 };
  const artifact: Partial<Record<Side, string>> = {};
  for (let round = 0; round <= ROUNDS; round++) {
    // A different row count per round: equal content would be stored once, and a later export would not upload it.
    const rows = ROWS - 1 - round;
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    const line: string[] = [];
    for (const side of order) {
      const run = await exportRun(servers[side], rows);
      if (round > 0) exports[side].push(run);
      artifact[side] = run.id;
      line.push(`${side} ${ms(run.totalMs)} (rows in at ${ms(run.rowsInMs)})`);
    }
    // The artifacts just made: not in the S3 server's cache, never hashed by the local one.
    for (const side of SIDES) {
      first[side].push(await readPage(servers[side], artifact[side]!));
      for (let i = 0; i < 3; i++) warm[side].push(await readPage(servers[side], artifact[side]!));
    }
    log(`  store export ${round === 0 ? 'warm-up' : `round ${round}/${ROUNDS}`}: ${line.join(', ')}; first read local ${ms(first.local.at(-1)!)}, s3 ${ms(first.s3.at(-1)!)}`);
  }

  // Cached reads: a sorted read leases every part, so the S3 side's cache holds them all before anything is timed
  // (a plain page fetches only the part its rows are in, and the pages below start anywhere).
  for (const side of SIDES) {
    const r = await servers[side].api('POST', `/api/artifacts/${artifact[side]!}/read`, { limit: 1, sort: [{ column: 'id', direction: 'desc' }] });
    expect(r.status === 200, `the sorted read that caches every part answered ${r.status}`);
  }
  parts = cachedParts(servers.s3.dataDir);
  log(`store: ${SEQUENTIAL_READS} sequential page reads on each side, alternating`);
  const sequential: Record<Side, number[]> = { local: [], s3: [] };
  for (let i = 0; i < 10; i++) for (const side of SIDES) await readPage(servers[side], artifact[side]!);
  for (let i = 0; i < SEQUENTIAL_READS; i++) {
    for (const side of i % 2 === 0 ? SIDES : [...SIDES].reverse()) sequential[side].push(await readPage(servers[side], artifact[side]!));
  }

  log(`store: page reads at ${CONNECTIONS} connections (autocannon, ${SECONDS} s per run, ${LOAD_ORDER.join(' ')})`);
  const loaded: Record<Side, { latencies: number[]; rps: number[]; bad: number }> = { local: { latencies: [], rps: [], bad: 0 }, s3: { latencies: [], rps: [], bad: 0 } };
  for (const side of LOAD_ORDER) {
    const r = await loadRead(servers[side], artifact[side]!);
    // Requests still queued when autocannon stops would run into the next side's figures: one more read waits them out.
    await readPage(servers[side], artifact[side]!);
    loaded[side].latencies.push(...r.latencies);
    loaded[side].rps.push(r.rps);
    loaded[side].bad += r.bad;
    log(`  ${side}: ${r.rps.toFixed(0)} req/s, p50 ${ms(percentile(r.latencies, 50))}, p95 ${ms(percentile(r.latencies, 95))}`);
  }

  return report({ exports, first, warm, sequential, loaded, parts, s3 });
}

interface Measured {
  exports: Record<Side, ExportRun[]>;
  first: Record<Side, number[]>;
  warm: Record<Side, number[]>;
  sequential: Record<Side, number[]>;
  loaded: Record<Side, { latencies: number[]; rps: number[]; bad: number }>;
  parts: { count: number; bytes: number };
  s3: TestS3Server;
}

function report({ exports, first, warm, sequential, loaded, parts, s3 }: Measured): Section {
  const total = (side: Side) => median(exports[side].map((r) => r.totalMs));
  const tail = (side: Side) => median(exports[side].map((r) => r.totalMs - r.rowsInMs));
  const throughput = total('local') / total('s3');
  const sizeBytes = exports.s3[0]!.sizeBytes;
  const stat = (values: Record<Side, number[]>, p: number) => ({ local: percentile(values.local, p), s3: percentile(values.s3, p) });
  const latencyRow = (figure: string, values: Record<Side, number[]>, p: number): Row => {
    const v = stat(values, p);
    return { figure, target: '≤ 1.20×', measured: `${ratio(v.s3 / v.local)} (${ms(v.s3)} vs ${ms(v.local)})`, held: v.s3 / v.local <= 1.2 };
  };
  const loadedLatencies = { local: loaded.local.latencies, s3: loaded.s3.latencies };
  const coldMs = median(first.s3);
  const warmMs = median(warm.s3);
  const uploadMBps = sizeBytes / 1024 ** 2 / ((tail('s3') - tail('local')) / 1000);

  const rows: Row[] = [
    {
      figure: `Export throughput, ${(ROWS / 1e6).toFixed(0)}M rows (S3 bytes ÷ local bytes)`,
      target: '≥ 0.80×',
      measured: `${ratio(throughput)} (${ms(total('s3'))} vs ${ms(total('local'))})`,
      held: throughput >= 0.8,
    },
    {
      figure: 'Export: last row received → CREATED (S3 vs local)',
      target: '(info)',
      measured: `${ms(tail('s3'))} vs ${ms(tail('local'))}`,
      held: null,
    },
    latencyRow('Cached page read, sequential: median S3 ÷ local', sequential, 50),
    latencyRow('Cached page read, sequential: p95 S3 ÷ local', sequential, 95),
    latencyRow(`Cached page read at ${CONNECTIONS} connections: median S3 ÷ local`, loadedLatencies, 50),
    latencyRow(`Cached page read at ${CONNECTIONS} connections: p95 S3 ÷ local`, loadedLatencies, 95),
    {
      figure: 'Errors and non-2xx answers under load',
      target: 'none',
      measured: `${loaded.local.bad + loaded.s3.bad}`,
      held: loaded.local.bad + loaded.s3.bad === 0,
    },
    {
      figure: 'First read of an uncached artifact (S3), and ÷ a warm read',
      target: '(info)',
      measured: `${ms(coldMs)}; ${ratio(coldMs / warmMs)} (warm ${ms(warmMs)})`,
      held: null,
    },
    {
      figure: 'First read in the process on local bytes (hashes every part), ÷ a warm read',
      target: '(info)',
      measured: `${ms(median(first.local))}; ${ratio(median(first.local) / median(warm.local))} (warm ${ms(median(warm.local))})`,
      held: null,
    },
  ];
  const notes = [
    `Exports (POST to CREATED, ${ROUNDS} interleaved rounds after a warm-up round, ${(ROWS - 2).toLocaleString('en-US')}-${(ROWS - 1 - ROUNDS).toLocaleString('en-US')} rows): local ${spread(exports.local.map((r) => r.totalMs))}, S3 ${spread(exports.s3.map((r) => r.totalMs))}. Last row received at: local ${spread(exports.local.map((r) => r.rowsInMs))}, S3 ${spread(exports.s3.map((r) => r.rowsInMs))}. Artifact ${mb(sizeBytes)} of Parquet; the S3 side's part cache held ${parts.count} parts (${mb(parts.bytes)}) when the cached reads began; the extra tail on S3 is ${ms(tail('s3') - tail('local'))}, ≈ ${Number.isFinite(uploadMBps) && uploadMBps > 0 ? uploadMBps.toFixed(0) : '?'} MB/s of upload after the last row; s3rver used ${spread(exports.s3.map((r) => r.s3rverCpuS), (v) => `${v.toFixed(2)} CPU-s`)} per S3 export.`,
    `Sequential page reads (limit 1000, ${SEQUENTIAL_READS} per side after 10 warm-up reads, alternating): local ${spread(sequential.local)}, p95 ${ms(percentile(sequential.local, 95))}; S3 ${spread(sequential.s3)}, p95 ${ms(percentile(sequential.s3, 95))}.`,
    `At ${CONNECTIONS} connections (autocannon, ${SECONDS} s × ${LOAD_ORDER.length / 2} per side, order ${LOAD_ORDER.join(' ')}, each followed by one read that waits out the queued ones): local ${loaded.local.latencies.length} reads, ${loaded.local.rps.map((r) => r.toFixed(0)).join(' / ')} req/s, p50 ${ms(percentile(loaded.local.latencies, 50))}, p95 ${ms(percentile(loaded.local.latencies, 95))}; S3 ${loaded.s3.latencies.length} reads, ${loaded.s3.rps.map((r) => r.toFixed(0)).join(' / ')} req/s, p50 ${ms(percentile(loaded.s3.latencies, 50))}, p95 ${ms(percentile(loaded.s3.latencies, 95))}.`,
    `First reads, one per exported artifact (${first.s3.length}), each followed by 3 warm reads: S3 ${spread(first.s3)} (every part fetched from the bucket into the cache), local ${spread(first.local)}; warm S3 ${spread(warm.s3)}, warm local ${spread(warm.local)}.`,
    `s3rver on 127.0.0.1 (port ${s3.port}) in a child process on the same 2 cores (its CPU competes with the export's); SQLite catalog on both sides; part cache bound ${mb(CACHE_BYTES)}; the read workers (2) are started by a 10-row artifact before any figure.`,
  ];
  return { title: `Artifact bytes in S3 (s3rver) vs a local directory (${(ROWS / 1e6).toFixed(0)}M-row export, page reads)`, rows, notes };
}

if (process.argv[1]?.endsWith('store.ts')) {
  process.exit((await runParts([['store', storeSection]], 'npx tsx bench/store.ts')) ? 0 : 1);
}
