/**
 * HTTP throughput at 50 connections (autocannon, 5 s each): Sluice's
 * /healthz and a page read of an artifact, against a bare Hono route served
 * the same way (@hono/node-server, same process) measured in the same run.
 */
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import type { Section } from './lib/report.ts';
import { startBenchSluice, TOKEN } from './lib/sluice.ts';

const CONNECTIONS = 50;
const SECONDS = 5;

interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(url: string, options: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {}): Promise<Load> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, method: options.method ?? 'GET', ...(options.body ? { body: options.body } : {}), headers: options.headers ?? {} });
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

export async function httpSection(log: (line: string) => void): Promise<Section> {
  const bare = await bareHono();
  const s = await startBenchSluice();
  try {
    const q = await s.api('POST', '/api/queries', { sql: 'select g::int8 as id, md5(g::text) as h from generate_series(1, 100000) g', materialize: 'always' });
    const artifact = q.body.data.artifact.id as string;
    log('http: bare Hono route');
    const base = await load(bare.url);
    log('http: /healthz');
    const health = await load(`${s.sluice.url}/healthz`);
    log('http: page read (100 rows)');
    const read = await load(`${s.sluice.url}/api/artifacts/${artifact}/read`, {
      method: 'POST',
      body: JSON.stringify({ limit: 100 }),
      headers: { 'x-token': TOKEN, 'content-type': 'application/json' },
    });
    const ratio = (a: Load) => `${(a.rps / base.rps).toFixed(2)}× (${a.rps.toFixed(0)} vs ${base.rps.toFixed(0)} req/s), p99 ${a.p99} ms vs ${base.p99} ms`;
    return {
      title: `HTTP at ${CONNECTIONS} connections (autocannon, ${SECONDS} s each)`,
      rows: [
        { figure: '/healthz requests/s ÷ bare Hono route', target: '(info)', measured: ratio(health), held: null },
        { figure: 'Page read (100 rows) requests/s ÷ bare Hono route', target: '(info)', measured: ratio(read), held: null },
        { figure: 'Errors and non-2xx answers', target: 'none', measured: `${health.errors + read.errors} errors, ${health.non2xx + read.non2xx} non-2xx`, held: health.errors + read.errors + health.non2xx + read.non2xx === 0 },
      ],
      notes: [`Bare Hono: ${base.rps.toFixed(0)} req/s, p99 ${base.p99} ms. The page read runs DuckDB over the artifact's Parquet in a read worker for every request.`],
    };
  } finally {
    await s.stop();
    await bare.close();
  }
}
