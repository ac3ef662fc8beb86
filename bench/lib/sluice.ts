/**
 * A whole Sluice started in-process against the local PostgreSQL, with its
 * own temporary data dir and limits raised for the bench, plus a small JSON
 * client for its HTTP API.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startSluice, type Sluice, type StartSeams } from '../../src/server.ts';
import { DATABASE_URL } from './tables.ts';
import { quietLogger } from '../../src/logger.ts';

export const TOKEN = 'bench-token-00000001';
export const PRINCIPAL = 'bench';

export interface BenchSluice {
  sluice: Sluice;
  dataDir: string;
  /** The key that signs read cursors (from <dataDir>/secrets.json). */
  cursorKey: string;
  api<T = any>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/**
 * `reuse`: start over an existing data dir (a restart) and leave it in place on stop, so another
 * start can follow; without it each Sluice gets a new data dir, removed when it stops. `seams`:
 * what the server is started with apart from its configuration (the audit off, for one).
 */
export async function startBenchSluice(env: Record<string, string> = {}, { seams = {}, reuse }: { seams?: StartSeams; reuse?: { dataDir: string } } = {}): Promise<BenchSluice> {
  const dataDir = reuse?.dataDir ?? mkdtempSync(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'sluice-bench-'));
  const config = loadConfig({
    DATABASE_URL,
    SLUICE_DATA_DIR: dataDir,
    PORT: '0',
    SLUICE_MAX_ROWS: '10000000',
    SLUICE_MAX_BYTES: '10000000000',
    SLUICE_MAX_DURATION_MS: '600000',
    SLUICE_PRINCIPAL_QUOTA_BYTES: String(50 * 1024 ** 3),
    SLUICE_WORKSPACE_QUOTA_BYTES: String(50 * 1024 ** 3),
    SLUICE_TOKENS: JSON.stringify([{ token: TOKEN, principal: PRINCIPAL, roles: ['admin'] }]),
    // Pages now answer by the thousand a second: the per-principal rate limit (1200 a minute) is not what any part measures.
    SLUICE_RATE_LIMIT_PER_MINUTE: '10000000',
    ...env,
  });
  const sluice = await startSluice(config, quietLogger, seams);
  await sluice.ready;
  const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as { cursorKey: string };
  return {
    sluice,
    dataDir,
    cursorKey: secrets.cursorKey,
    async api(method, path, body) {
      const response = await fetch(`${sluice.url}${path}`, {
        method,
        headers: { 'x-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: JSON.parse(text) };
    },
    async stop() {
      await sluice.stop();
      if (reuse === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface QueryTiming {
  /** POST /api/queries until its answer (202 with waitMs 0). */
  acceptedMs: number;
  /** POST until an answer shows preview rows. */
  previewMs: number;
  /** POST until the query ended (for an export: artifact committed). */
  totalMs: number;
  /** The query's final `data`. */
  data: any;
}

/** Submits a query with waitMs 0, polls every `pollMs` until preview rows show, then waits for its end. */
export async function submitAndWait(s: BenchSluice, body: Record<string, unknown>, pollMs = 10): Promise<QueryTiming> {
  const t0 = performance.now();
  const submitted = await s.api('POST', '/api/queries', { ...body, waitMs: 0 });
  const acceptedMs = performance.now() - t0;
  if (submitted.status !== 202 && submitted.status !== 200) throw new Error(`POST /api/queries: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  let data = submitted.body.data;
  const id: string = data.queryId;
  let previewMs = data.preview.rows.length > 0 ? acceptedMs : Number.NaN;
  while (Number.isNaN(previewMs) && data.state === 'RUNNING') {
    await new Promise((r) => setTimeout(r, pollMs));
    const polled = await s.api('GET', `/api/queries/${id}`);
    data = polled.body.data;
    if (data === undefined) throw new Error(`GET /api/queries/${id}: ${polled.status} ${JSON.stringify(polled.body)}`);
    if (data.preview.rows.length > 0) previewMs = performance.now() - t0;
  }
  while (data.state === 'RUNNING') {
    const polled = await s.api('GET', `/api/queries/${id}?waitMs=1000`);
    data = polled.body.data;
    if (data === undefined) throw new Error(`GET /api/queries/${id}: ${polled.status} ${JSON.stringify(polled.body)}`);
  }
  if (Number.isNaN(previewMs) && data.preview.rows.length > 0) previewMs = performance.now() - t0;
  return { acceptedMs, previewMs, totalMs: performance.now() - t0, data };
}

export interface ExportTiming {
  acceptedMs: number;
  previewMs: number;
  totalMs: number;
  rows: number;
  artifactId: string;
  sizeBytes: number;
}

/** An export of `sql` with materialize 'always'; fails unless it ends SUCCEEDED with an artifact. */
export async function runExport(s: BenchSluice, sql: string): Promise<ExportTiming> {
  const { acceptedMs, previewMs, totalMs, data } = await submitAndWait(s, { sql, materialize: 'always' });
  if (data.state !== 'SUCCEEDED' || data.artifact?.decision !== 'CREATED') {
    throw new Error(`export ended ${data.state}: ${JSON.stringify(data.artifact)}`);
  }
  return { acceptedMs, previewMs, totalMs, rows: data.artifact.rowCount, artifactId: data.artifact.id, sizeBytes: data.artifact.sizeBytes };
}
