/**
 * Starts Sluice with a documented command and checks it over HTTP: health, a
 * query that makes an artifact (checked row by row through an aggregate), a
 * sorted page read that follows its cursor once, a plain page (cut from a
 * read worker's window), a
 * cancel of a running statement (seen to stop on the database itself), and
 * a clean exit on SIGTERM. Each command runs its runtime for real:
 *   node         `npm start`            Node on the build in dist/
 *   bun          `bun --bun run start`  Bun on that same build
 *   deno         `deno task start`      Deno on the sources
 *   bun-sources  `bun src/index.ts`     Bun on the sources
 * The builds write dist/, as `npm start` does; a build that changes nothing
 * leaves a dist/ in use alone (scripts/build.ts).
 * Usage: runtime-smoke [target...] (all by default). The servers use
 * TEST_DATABASE_URL (default: the local test PostgreSQL) as DATABASE_URL: a
 * real PostgreSQL, where a cancel stops the statement.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openAdminSql } from '../test/helpers/admin-sql.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUN = join(ROOT, 'node_modules', '.bin', 'bun');
const DENO = join(ROOT, 'node_modules', '.bin', 'deno');

export const TARGETS: Record<string, string[]> = {
  node: ['npm', 'start'],
  bun: [BUN, '--bun', 'run', 'start'],
  deno: [DENO, 'task', 'start'],
  'bun-sources': [BUN, 'src/index.ts'],
};

export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Up to 60 s in steps of 100 ms: a runtime's first start compiles or caches, and a slow machine is not a failure. */
async function waitFor(condition: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 600; i++) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

function serverEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // `npm start` runs the `node` found first: the one running this script, so each Node line checks itself.
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    SLUICE_DATA_DIR: dataDir,
    PORT: String(port),
    DATABASE_URL,
  };
  // The admin token is read from the data dir, and the server must listen where it is called.
  for (const name of ['SLUICE_DATASOURCES', 'SLUICE_TOKENS', 'HOST']) delete env[name];
  return env;
}

/** Whether any process of the group led by `pid` still runs (signal 0 only checks). */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function smoke(target: string): Promise<string[]> {
  const command = TARGETS[target];
  if (command === undefined) throw new Error(`unknown target ${target} (one of ${Object.keys(TARGETS).join(', ')})`);
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-${target}-`));
  // A group of its own: whatever the launcher starts can be stopped with it.
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env: serverEnv(dataDir, port), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const sql = openAdminSql(DATABASE_URL);
  const base = `http://127.0.0.1:${port}`;
  const checks: string[] = [];
  let marker: string | null = null;
  const check = (ok: boolean, what: string, seen?: unknown) => {
    if (!ok) throw new Error(`${target}: ${what} failed${seen === undefined ? '' : `: ${JSON.stringify(seen)}`}\n${output}`);
    checks.push(what);
  };
  try {
    check(await waitFor(() => fetch(`${base}/readyz`).then((r) => r.ok, () => false)), 'readyz');
    check((await fetch(`${base}/healthz`)).ok, 'healthz');
    // The console's page and its two assets: prebuilt under `npm start`, bundled from the sources otherwise.
    const consolePage = await fetch(`${base}/`);
    const html = await consolePage.text();
    check(consolePage.ok && consolePage.url.endsWith('/console') && (consolePage.headers.get('content-security-policy') ?? '').includes("script-src 'self'"), 'console page');
    for (const asset of html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
      const r = await fetch(`${base}${asset[1]}`);
      check(r.ok && (await r.arrayBuffer()).byteLength > 1000, `console asset ${asset[1]}`, r.status);
    }
    const token = (JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as { adminToken: string }).adminToken;
    const api = async (path: string, body?: unknown) => {
      const r = await fetch(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { 'x-token': token, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: r.status, body: (await r.json()) as any };
    };

    // About 6 MB of CSV: the export's receive buffers (1 MiB, reused) turn over several times on each runtime.
    const query = await api('/api/queries', {
      sql: "select g::int8 as id, g % 7 as k, timestamptz '2026-01-31 10:00:00+00' + g * interval '1 second' as t, repeat(chr(97 + g % 26), g % 61) as s from generate_series(1, 100000) g",
      previewRows: 5,
    });
    check(query.status === 200 && query.body.data?.artifact?.decision === 'CREATED' && query.body.data.completeness.totalRows === 100000, 'query with an artifact', query.body);
    // Every row exactly as the database made it: sums over all of them, from the stored Parquet.
    const totals = await api(`/api/artifacts/${query.body.data.artifact.id}/aggregate`, {
      metrics: [{ fn: 'count' }, { fn: 'sum', column: 'id' }, { fn: 'sum', column: 'k' }, { fn: 'count_distinct', column: 's' }, { fn: 'max', column: 't' }],
    });
    check(totals.status === 200 && JSON.stringify(totals.body.data?.rows) === JSON.stringify([['100000', '5000050000', '300000', '1561', '2026-02-01T13:46:40.000000Z']]), 'every row stored exactly', totals.body);

    const read = { limit: 3, sort: [{ column: 'id', direction: 'desc' }] };
    const path = `/api/artifacts/${query.body.data.artifact.id}/read`;
    const page = await api(path, read);
    const rows = page.body.data?.rows as unknown[][] | undefined;
    check(
      page.status === 200 && rows?.map((row) => row[0]).join() === '100000,99999,99998' && rows[0]?.[2] === '2026-02-01T13:46:40.000000Z' && typeof page.body.data.nextCursor === 'string',
      'page read',
      page.body,
    );
    const next = await api(path, { ...read, cursor: page.body.data.nextCursor });
    check(next.status === 200 && (next.body.data?.rows as unknown[][] | undefined)?.map((row) => row[0]).join() === '99997,99996,99995', 'next page by the cursor', next.body);
    // A plain first page: a read worker cuts it from a window it holds as JavaScript arrays (worker/column-window.ts).
    const plain = await api(path, { limit: 3 });
    const firstRows = [1, 2, 3].map((g) => [String(g), g, `2026-01-31T10:00:0${g}.000000Z`, String.fromCharCode(97 + g).repeat(g)]);
    check(plain.status === 200 && JSON.stringify(plain.body.data?.rows) === JSON.stringify(firstRows), 'plain page from a window', plain.body);

    // The marker is a parameter of the look-up, so the look-up never finds itself.
    const mark = (marker = `smoke_${randomBytes(6).toString('hex')}`);
    const sleeping = async () => {
      const [row] = await sql.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where state = 'active' and position($1 in query) > 0", [mark]);
      return row!.n > 0;
    };
    const slow = await api('/api/queries', { sql: `select pg_sleep(30) as ${mark}`, waitMs: 0 });
    check(slow.status === 202 && slow.body.data?.state === 'RUNNING', 'slow query answered 202', slow.body);
    check(await waitFor(sleeping), 'slow query running on the database');
    const cancelled = await api(`/api/queries/${slow.body.data.queryId}/cancel`, {});
    check(cancelled.status === 200 && cancelled.body.data?.state === 'CANCELLED', 'cancel', cancelled.body);
    check(!(await sleeping()), 'statement stopped on the database');

    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('no exit within 30 s'), 30_000).unref())]);
    check(code === 0, 'clean exit on SIGTERM', code);
    // The runtime's own helpers (a package runner's shell, the build's esbuild service) may take a moment to
    // follow the server out; something still there after the bounded wait is a leak.
    check(await waitFor(async () => !groupAlive(child.pid!)), 'nothing left running');
    return checks;
  } finally {
    if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
    // A statement a failed cancel left sleeping must not hold a backend for the rest of its 30 s.
    if (marker !== null) await sql.query('select pg_cancel_backend(pid) from pg_stat_activity where position($1 in query) > 0 and pid <> pg_backend_pid()', [marker]).catch(() => undefined);
    await sql.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const targets = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(TARGETS);
  for (const target of targets) console.log(`${target} (${TARGETS[target]?.join(' ') ?? '?'}): ${(await smoke(target)).join(', ')}: ok`);
}
