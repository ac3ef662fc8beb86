/**
 * HTTP throughput at 50 connections (autocannon, 5 s each) on the artifact of
 * a 2M-row query: page reads (the first page, one cursor page, and cursor
 * pages that differ on every request, so no page is served twice), and an
 * aggregate, against a bare Hono route served the same way (@hono/node-server,
 * same process) and DuckDB itself looping over the same Parquet on one
 * connection, all measured in the same run.
 */
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { DuckDBInstance } from '@duckdb/node-api';
import { Hono } from 'hono';
import { CursorCodec, readShape } from '../src/artifacts/cursor.ts';
import { BLOCK_ROWS } from '../src/artifacts/store/page-reads.ts';
import { quoteLiteral } from '../src/columns/column-plan.ts';
import type { Row, Section } from './lib/report.ts';
import { freshPages } from './lib/fresh-pages.ts';
import { auditPages } from './lib/audit-pages.ts';
import { partFiles } from './lib/part-files.ts';
import { ratio } from './lib/stats.ts';
import { PRINCIPAL, runExport, startBenchSluice, TOKEN } from './lib/sluice.ts';

const CONNECTIONS = 50;
const SECONDS = 5;
const ROWS = 2_000_000;
const PAGE = 100;
/** Where the fixed cursor page starts: deep in the artifact, past several parts. */
const CURSOR_AT = 1_500_000;
const PAGES_PER_SECOND = 1000;
const P99_MS = 150;

interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** One request body for all, a new one each request, or a reader's next page (its connection's context carries its cursor). */
type Body = string | (() => string) | { next: (context: Record<string, unknown>) => string; answered: (body: string, context: Record<string, unknown>) => void };

async function load(url: string, options: { method?: 'GET' | 'POST'; body?: Body; headers?: Record<string, string> } = {}): Promise<Load> {
  const { body } = options;
  const requests =
    typeof body === 'function'
      ? [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: body() }) }]
      : typeof body === 'object'
        ? // autocannon resets a connection's context each time it comes to the end of the list: a long list keeps a reader's cursor.
          Array.from({ length: 10_000 }, () => ({ setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => ({ ...req, body: body.next(context) }), onResponse: (_status: number, text: string, context: Record<string, unknown>) => body.answered(text, context) }))
        : undefined;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: options.method ?? 'GET',
    ...(typeof body === 'string' ? { body } : {}),
    ...(requests ? { requests: requests as never } : {}),
    headers: options.headers ?? {},
  });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

async function bareHono(): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Hono().get('/', (c) => c.json({ status: 'ok' }));
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}/`, close: () => new Promise<void>((done) => server.close(() => done())) }),
    );
  });
}

/** Statements per second of DuckDB on one connection in this process, for SECONDS. */
async function duckLoop(run: (i: number) => Promise<unknown>): Promise<number> {
  const end = performance.now() + SECONDS * 1000;
  let n = 0;
  const t0 = performance.now();
  while (performance.now() < end) await run(n++);
  return n / ((performance.now() - t0) / 1000);
}

export async function httpSection(log: (line: string) => void): Promise<Section> {
  const bare = await bareHono();
  const s = await startBenchSluice();
  const duckInstance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const duck = await duckInstance.connect();
  try {
    log(`http: exporting a ${ROWS.toLocaleString('en-US')}-row artifact`);
    const exportSql = `select g::int8 as id, md5(g::text) as h, (g % 1000)::int4 as score, now()::timestamptz as at from generate_series(1, ${ROWS}) g`;
    const made = await runExport(s, exportSql);
    if (made.rows !== ROWS) throw new Error(`http: the artifact holds ${made.rows} rows`);
    const artifact = made.artifactId;
    const files = partFiles(s.dataDir);
    const codec = new CursorCodec(s.cursorKey);
    const cursor = codec.encode(artifact, PRINCIPAL, readShape({}), CURSOR_AT);
    const headers = { 'x-token': TOKEN, 'content-type': 'application/json' };
    const readUrl = `${s.sluice.url}/api/artifacts/${artifact}/read`;
    // One read of each kind first, so the read workers are up, and an aggregate, which leases every
    // part: a part is hashed the first time the process hands it out, once, and that is not what is measured.
    await s.api('POST', `/api/artifacts/${artifact}/aggregate`, { metrics: [{ fn: 'count' }] });
    for (const body of [{ limit: PAGE }, { limit: PAGE, cursor }]) await s.api('POST', `/api/artifacts/${artifact}/read`, body);

    log('http: bare Hono route');
    const base = await load(bare.url);
    log('http: /healthz');
    const health = await load(`${s.sluice.url}/healthz`);
    log(`http: first page (${PAGE} rows)`);
    const first = await load(readUrl, { method: 'POST', body: JSON.stringify({ limit: PAGE }), headers });
    log(`http: cursor page (${PAGE} rows at row ${CURSOR_AT.toLocaleString('en-US')})`);
    const cursorPage = await load(readUrl, { method: 'POST', body: JSON.stringify({ limit: PAGE, cursor }), headers });
    log('http: cursor pages, a different one each request');
    const fresh = freshPages(s.cursorKey, artifact, ROWS, PAGE);
    const distinct = await load(readUrl, { method: 'POST', body: () => JSON.stringify(fresh()), headers });
    log(`http: ${CONNECTIONS} readers, each following its own cursor`);
    let started = 0;
    let followed = 0;
    const readers = await load(readUrl, {
      method: 'POST',
      body: {
        // Each connection starts somewhere of its own, 37,000 rows after the last one's start, and follows nextCursor.
        next: (context) => {
          if (typeof context.cursor !== 'string') context.cursor = codec.encode(artifact, PRINCIPAL, readShape({}), (started++ * 37_000) % (ROWS - 100_000));
          return JSON.stringify({ limit: PAGE, cursor: context.cursor });
        },
        answered: (text, context) => {
          const next = (JSON.parse(text) as { data?: { nextCursor?: string | null } }).data?.nextCursor;
          context.cursor = typeof next === 'string' ? next : undefined;
          followed++;
        },
      },
      headers,
    });
    log('http: aggregate (count and sum by score % 1000)');
    const aggregate = await load(`${s.sluice.url}/api/artifacts/${artifact}/aggregate`, {
      method: 'POST',
      body: JSON.stringify({ groupBy: ['score'], metrics: [{ fn: 'count' }, { fn: 'sum', column: 'id' }], limit: 10 }),
      headers,
    });

    log('http: aggregates, each one different (another limit each request)');
    let groups = 0;
    const aggregateFresh = await load(`${s.sluice.url}/api/artifacts/${artifact}/aggregate`, {
      method: 'POST',
      body: () => JSON.stringify({ groupBy: ['score'], metrics: [{ fn: 'count' }, { fn: 'sum', column: 'id' }], limit: 11 + (groups++ % 900) }),
      headers,
    });

    log('http: DuckDB direct, one connection');
    await duck.run("SET TimeZone = 'UTC'");
    const all = `read_parquet([${files.map(quoteLiteral).join(', ')}])`;
    const one = `read_parquet(${quoteLiteral(files[0]!)})`;
    const duckFirst = await duckLoop(() => duck.runAndReadAll(`SELECT * FROM ${all} LIMIT ${PAGE}`));
    const duckPart = await duckLoop(() => duck.runAndReadAll(`SELECT * FROM ${one} LIMIT ${PAGE}`));
    const duckDeep = await duckLoop(() => duck.runAndReadAll(`SELECT * FROM ${all} LIMIT ${PAGE} OFFSET ${CURSOR_AT}`));
    const duckAggregate = await duckLoop(() => duck.runAndReadAll(`SELECT score, count(*), sum(id) FROM ${all} GROUP BY score ORDER BY score LIMIT 10`));

    // The same fresh pages against a server without the audit trail, interleaved with this one's.
    const off = await startBenchSluice({}, { seams: { audit: false } });
    const audit = await auditPages(s, artifact, off, exportSql, ROWS, PAGE, load, log).finally(() => off.stop());

    const loads = { health, first, cursorPage, distinct, readers, aggregate, aggregateFresh };
    const errors = Object.values(loads).reduce((n, l) => n + l.errors + l.non2xx, 0);
    const vsBare = (a: Load) => `${ratio(a.rps / base.rps)} (${a.rps.toFixed(0)} vs ${base.rps.toFixed(0)} req/s), p99 ${a.p99} ms vs ${base.p99} ms`;
    const page = (name: string, a: Load, duckRate: number, duckName: string): Row[] => [
      {
        figure: `${name}: pages/s (p99) at ${CONNECTIONS} connections`,
        target: `≥ ${PAGES_PER_SECOND}/s, p99 ≤ ${P99_MS} ms`,
        measured: `${a.rps.toFixed(0)}/s, p99 ${a.p99} ms`,
        held: a.rps >= PAGES_PER_SECOND && a.p99 <= P99_MS && a.errors + a.non2xx === 0,
      },
      { figure: `${name} ÷ DuckDB direct (${duckName}, one connection)`, target: '(info)', measured: `${ratio(a.rps / duckRate)} (${a.rps.toFixed(0)} vs ${duckRate.toFixed(0)}/s)`, held: null },
      { figure: `${name} ÷ bare Hono route`, target: '(info)', measured: vsBare(a), held: null },
    ];
    const rows: Row[] = [
      { figure: '/healthz requests/s ÷ bare Hono route', target: '(info)', measured: vsBare(health), held: null },
      ...page(`First page (${PAGE} rows)`, first, duckFirst, 'LIMIT over all parts'),
      ...page(`Cursor page (${PAGE} rows at row ${CURSOR_AT.toLocaleString('en-US')})`, cursorPage, duckDeep, 'OFFSET over all parts'),
      {
        figure: `Cursor pages, each one different (no page served twice) ÷ DuckDB direct (one part's first page)`,
        target: '(info)',
        measured: `${ratio(distinct.rps / duckPart)} (${distinct.rps.toFixed(0)} vs ${duckPart.toFixed(0)}/s), p99 ${distinct.p99} ms`,
        held: null,
      },
      {
        figure: `${CONNECTIONS} readers following their cursors (${PAGE}-row pages) ÷ DuckDB direct (one part's first page)`,
        target: '(info)',
        measured: `${ratio(readers.rps / duckPart)} (${readers.rps.toFixed(0)} vs ${duckPart.toFixed(0)}/s), p99 ${readers.p99} ms`,
        held: null,
      },
      {
        figure: 'Aggregate (group by 1000 keys, top 10; repeated, so from the cache after the first) ÷ DuckDB direct',
        target: '(info)',
        measured: `${ratio(aggregate.rps / duckAggregate)} (${aggregate.rps.toFixed(0)} vs ${duckAggregate.toFixed(0)}/s), p99 ${aggregate.p99} ms`,
        held: null,
      },
      { figure: 'Aggregate ÷ bare Hono route', target: '(info)', measured: vsBare(aggregate), held: null },
      {
        figure: 'Aggregates, each one different (another limit each request) ÷ DuckDB direct',
        target: '(info)',
        measured: `${ratio(aggregateFresh.rps / duckAggregate)} (${aggregateFresh.rps.toFixed(0)} vs ${duckAggregate.toFixed(0)}/s), p99 ${aggregateFresh.p99} ms`,
        held: null,
      },
      ...audit.rows,
      { figure: 'Errors and non-2xx answers', target: 'none', measured: `${errors} (${Object.entries(loads).map(([k, l]) => `${k} ${l.errors}+${l.non2xx}`).join(', ')})`, held: errors === 0 },
    ];
    return {
      title: `HTTP at ${CONNECTIONS} connections (autocannon, ${SECONDS} s each; artifact of ${ROWS.toLocaleString('en-US')} rows)`,
      rows,
      notes: [
        `Artifact: ${ROWS.toLocaleString('en-US')} rows × 4 columns in ${files.length} Parquet parts. Bare Hono: ${base.rps.toFixed(0)} req/s, p99 ${base.p99} ms. autocannon runs in the same process as Sluice and the bare route, so it takes CPU from both alike.`,
        `DuckDB direct (this process, threads=2, one connection, ${SECONDS} s loops): first page over all parts ${duckFirst.toFixed(0)}/s; first page of one part ${duckPart.toFixed(0)}/s; LIMIT ${PAGE} OFFSET ${CURSOR_AT} over all parts ${duckDeep.toFixed(0)}/s; the aggregate ${duckAggregate.toFixed(0)}/s.`,
        ...audit.notes,
        `Each request of "cursor pages, each one different" carries a cursor signed for another offset (7919 pages apart, wrapping), so none is a repeat of one served before and each reads the Parquet. The first page, the cursor page and the aggregate repeat one request, so after the first they are answered from the page cache (authorized against the catalog each time). The readers (${followed} pages answered) each start at their own offset and follow nextCursor, as a client paging through a result does: a page that follows the one before is cut from a block of ${BLOCK_ROWS} rows read once.`,
      ],
    };
  } finally {
    duck.closeSync();
    await s.stop();
    await bare.close();
  }
}
