/**
 * Starts Sluice under one runtime (node, deno or bun: the runtime itself
 * executes the server) and checks it over HTTP: health, a query that makes
 * an artifact, a page read, a cancel, and a clean exit on SIGTERM. Node runs
 * the sources compiled by scripts/build.ts, as `npm start` does (into a
 * directory of its own, so a dist/ in use is left alone).
 * Usage: runtime-smoke <node|deno|bun>; DATABASE_URL picks the datasource
 * (default: the test PostgreSQL).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from './build.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const COMMANDS: Record<string, () => Promise<string[]>> = {
  node: async () => [process.execPath, join(await buildServer(join(ROOT, 'node_modules', '.cache', 'sluice-smoke-build')), 'src', 'index.js')],
  // The documented command, so a broken task fails here.
  deno: async () => ['node_modules/.bin/deno', 'task', 'start'],
  bun: async () => ['node_modules/.bin/bun', 'src/index.ts'],
};

export async function smoke(runtime: string, port: number): Promise<string[]> {
  const command = await COMMANDS[runtime]?.();
  if (command === undefined) throw new Error(`unknown runtime ${runtime}`);
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-${runtime}-`));
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, SLUICE_DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const checks: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`${runtime}: ${what} failed\n${output}`);
    checks.push(what);
  };
  try {
    let ready = false;
    for (let i = 0; i < 600 && !ready; i++) {
      ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    check(ready, 'readyz');
    check((await fetch(`${base}/healthz`)).ok, 'healthz');
    const token = (JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as { adminToken: string }).adminToken;
    const api = async (path: string, body?: unknown) => {
      const r = await fetch(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { 'x-token': token, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: r.status, body: (await r.json()) as any };
    };
    const query = await api('/api/queries', {
      sql: "select g::int8 as id, g % 7 as k, timestamptz '2026-01-31 10:00:00+00' + g * interval '1 second' as t from generate_series(1, 5000) g",
      previewRows: 5,
    });
    check(query.status === 200 && query.body.data.artifact.decision === 'CREATED' && query.body.data.completeness.totalRows === 5000, 'query with an artifact');
    const page = await api(`/api/artifacts/${query.body.data.artifact.id}/read`, { limit: 3, sort: [{ column: 'id', direction: 'desc' }] });
    const [first] = page.body.data.rows;
    check(page.status === 200 && first[0] === '5000' && first[2] === '2026-01-31T11:23:20.000000Z' && typeof page.body.data.nextCursor === 'string', 'page read');
    const slow = await api('/api/queries', { sql: 'select pg_sleep(20)', waitMs: 0 });
    const cancelled = await api(`/api/queries/${slow.body.data.queryId}/cancel`, {});
    check(cancelled.status === 200 && cancelled.body.data.state === 'CANCELLED', 'cancel');
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000).unref())]);
    check(code === 0, 'clean exit on SIGTERM');
    return checks;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('runtime-smoke.ts')) {
  const runtime = process.argv[2] ?? 'node';
  const checks = await smoke(runtime, 18_700 + Math.floor(Math.random() * 200));
  console.log(`${runtime}: ${checks.join(', ')}: ok`);
}
