/**
 * Load: 32 concurrent clients mix queries, page reads with filters and sorts,
 * aggregates and downloads for a fixed time. Every answer must be a 200
 * (none 5xx, and no refusal either), every read must equal PostgreSQL's own
 * answer, memory must stay bounded, and
 * after the run no file descriptor or worker thread may be left behind.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const S = 'loadtest';
const CLIENTS = 32;
const DURATION_MS = 15_000;
let server: TestServer;
let truth: { byBucket: Map<number, string>; filteredIds: string[]; count: number };

/** Open files, not sockets: idle keep-alive connections between this test's client and server are not leaks. */
const openFiles = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return !readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);

beforeAll(async () => {
  server = await startTestServer({ SLUICE_QUERY_WORKERS: '2', SLUICE_READ_WORKERS: '2' });
  await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
  await server.sql.query(`create table ${S}.t as select g::int8 as id, g % 10 as bucket, (g * 3 % 1000)::numeric(10,2) as amount from generate_series(1, 20000) g`);
  const sums = await server.sql.query(`select bucket, sum(amount)::text s from ${S}.t group by 1`);
  const ids = await server.sql.query(`select t.id::text as id from ${S}.t t where bucket = 3 and amount > 500 order by t.amount desc, t.id limit 40`);
  truth = { byBucket: new Map(sums.map((r) => [Number(r.bucket), r.s])), filteredIds: ids.map((r) => r.id), count: 20000 };
});
afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
  await server?.stop();
});

describe('load', () => {
  it(`serves ${CLIENTS} mixed clients with only 200s and right answers, and leaks nothing`, async () => {
    const seed = await server.request('/api/queries', { body: { sql: `select * from ${S}.t order by id`, materialize: 'always' } });
    expect(seed.status, JSON.stringify(seed.body)).toBe(200);
    expect(seed.body.data.artifact.decision).toBe('CREATED');
    const artifact = seed.body.data.artifact.id as string;
    // Warm up: both pools grow to their size under concurrency; growing is not leaking.
    await Promise.all(Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? server.request('/api/queries', { body: { sql: 'select pg_sleep(0.2)' } })
        : server.request(`/api/artifacts/${artifact}/aggregate`, { body: { metrics: [{ fn: 'count' }] } }),
    ));
    const filesBefore = openFiles();
    const fileNames = () => readdirSync('/proc/self/fd').map((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`); } catch { return ''; } }).filter((n) => !n.startsWith('socket:'));
    const namesBefore = fileNames();
    const rssBefore = process.memoryUsage().rss;
    const KINDS = ['query', 'filtered read', 'aggregate', 'download'] as const;
    /** Answers by operation, then by status. */
    const statuses = new Map<string, Map<number, number>>(KINDS.map((k) => [k, new Map()]));
    const wrong: string[] = [];
    const deadline = Date.now() + DURATION_MS;
    let operations = 0;
    const note = (kind: (typeof KINDS)[number], status: number) => {
      const counts = statuses.get(kind)!;
      counts.set(status, (counts.get(status) ?? 0) + 1);
    };

    async function client(n: number): Promise<void> {
      for (let i = 0; Date.now() < deadline; i++) {
        operations++;
        const kind = (n + i) % 4;
        if (kind === 0) {
          const r = await server.request('/api/queries', { token: TOKENS.analyst, body: { sql: `select count(*) from ${S}.t where bucket = $1`, params: [n % 10] } });
          note('query', r.status);
          if (r.status === 200 && r.body.data.preview.rows[0][0] !== String(truth.count / 10)) wrong.push(`count ${JSON.stringify(r.body.data.preview.rows)}`);
        } else if (kind === 1) {
          const r = await server.request(`/api/artifacts/${artifact}/read`, {
            body: { limit: 40, columns: ['id'], filters: [{ column: 'bucket', op: 'eq', value: 3 }, { column: 'amount', op: 'gt', value: '500' }], sort: [{ column: 'amount', direction: 'desc' }, { column: 'id', direction: 'asc' }] },
          });
          note('filtered read', r.status);
          if (r.status === 200 && JSON.stringify(r.body.data.rows.map((x: string[]) => x[0])) !== JSON.stringify(truth.filteredIds)) wrong.push('filtered read');
        } else if (kind === 2) {
          const r = await server.request(`/api/artifacts/${artifact}/aggregate`, { body: { groupBy: ['bucket'], metrics: [{ fn: 'sum', column: 'amount' }] } });
          note('aggregate', r.status);
          if (r.status === 200 && r.body.data.rows.some((row: [number, string]) => truth.byBucket.get(row[0]) !== row[1])) wrong.push('aggregate');
        } else {
          const r = await fetch(`${server.sluice.url}/api/artifacts/${artifact}/download?format=jsonl`, { headers: { 'x-token': TOKENS.admin } });
          note('download', r.status);
          const lines = (await r.text()).trimEnd().split('\n').length;
          if (r.status === 200 && lines !== truth.count) wrong.push(`download ${lines} lines`);
        }
      }
    }
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    const report = JSON.stringify(Object.fromEntries([...statuses].map(([kind, counts]) => [kind, Object.fromEntries(counts)])));
    const fiveHundreds = [...statuses.values()].flatMap((counts) => [...counts]).filter(([s]) => s >= 500).reduce((a, [, c]) => a + c, 0);
    expect(fiveHundreds, report).toBe(0);
    // Every request here is valid and within every limit, so anything but 200 is a failure:
    // a run of refusals (401, 404, 429, ...) has no 5xx and no wrong answer, and must not pass.
    for (const kind of KINDS) {
      expect([...statuses.get(kind)!.keys()], `${kind}: ${report}`).toEqual([200]);
      expect(statuses.get(kind)!.get(200), `${kind}: ${report}`).toBeGreaterThan(0);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(operations).toBeGreaterThan(CLIENTS);
    // Memory bounded: the run may not grow the process by more than a fixed amount.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(600 * 1024 * 1024);
    // Nothing left open: download files and Parquet handles close once answered.
    await new Promise((r) => setTimeout(r, 1000));
    const added = fileNames().filter((n) => !namesBefore.includes(n));
    expect(openFiles() - filesBefore, added.join(', ')).toBeLessThan(10);
    expect(threads()).toBeLessThan(200);
  }, 120_000);
});
