/**
 * Starts a whole Sluice in-process for a test file, against the PostgreSQL in
 * TEST_DATABASE_URL (CI sets it) or, when unset, the embedded default. Each
 * server gets its own data dir and its own tokens for three principals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startSluice, type Sluice, type StartSeams } from '../../src/server.ts';
import { quietLogger } from '../../src/logger.ts';
import { openAdminSql, type AdminSql } from './admin-sql.ts';
/** True when the suites run on the embedded database (see test/global-setup.ts), which cannot cancel or time out a running statement. */
export const EMBEDDED = process.env.SLUICE_TEST_EMBEDDED === '1' || !process.env.TEST_DATABASE_URL;

export const TOKENS = {
  admin: 'test-admin-token-0001',
  analyst: 'test-analyst-token-01',
  reader: 'test-reader-token-001',
  other: 'test-other-token-0001',
} as const;

export interface TestServer {
  sluice: Sluice;
  dataDir: string;
  databaseUrl: string;
  /** A direct connection to the datasource, for ground truth and setup. */
  sql: AdminSql;
  request(path: string, init?: { method?: string; body?: unknown; token?: string | null; headers?: Record<string, string>; rawBody?: string | Uint8Array<ArrayBuffer> }): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/** Runs `sql` with materialize "always" and returns the artifact id (asserting it was created). */
export async function createArtifact(server: TestServer, sql: string, token: string = TOKENS.admin): Promise<string> {
  const r = await server.request('/api/queries', { body: { sql, materialize: 'always' }, token });
  if (r.status !== 200 || r.body.data?.artifact?.decision !== 'CREATED') {
    throw new Error(`expected an artifact for ${sql}: ${JSON.stringify(r.body)}`);
  }
  return r.body.data.artifact.id as string;
}

export async function startTestServer(env: Record<string, string> = {}, seams: StartSeams = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-test-'));
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const config = loadConfig({
    SLUICE_DATA_DIR: dataDir,
    PORT: '0',
    // Suites page through artifacts quickly; the limits have their own tests.
    SLUICE_RATE_LIMIT_PER_MINUTE: '1000000',
    SLUICE_MAX_CONCURRENT_QUERIES: '64',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    SLUICE_TOKENS: JSON.stringify([
      { token: TOKENS.admin, principal: 'admin', roles: ['admin'] },
      { token: TOKENS.analyst, principal: 'analyst' },
      { token: TOKENS.reader, principal: 'reader', roles: ['reader'] },
      { token: TOKENS.other, principal: 'other', roles: ['analyst'] },
    ]),
    ...env,
  });
  const sluice = await startSluice(config, quietLogger, seams);
  await sluice.ready;
  const url = databaseUrl ?? (await embeddedUrl(sluice));
  const sql = openAdminSql(url);
  return {
    sluice,
    dataDir,
    databaseUrl: url,
    sql,
    async request(path, init = {}) {
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      const token = init.token === undefined ? TOKENS.admin : init.token;
      if (token !== null) headers['x-token'] = token;
      let body: string | Uint8Array<ArrayBuffer> | undefined = init.rawBody;
      if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${sluice.url}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON (a download or the docs page): the text itself.
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    async stop() {
      await sql.end();
      await sluice.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function embeddedUrl(sluice: Sluice): Promise<string> {
  const url = sluice.datasourceUrl('default');
  if (url === undefined) throw new Error('The default datasource did not start.');
  return url;
}
