/**
 * Replicas on one catalog and one bucket when things go wrong: two replicas
 * committing at once under a quota that fits one artifact (exactly one gets
 * it, and usage counts it once), and a replica killed with SIGKILL in the
 * middle of an export (the others keep serving, nothing half-written is
 * ever listed or readable, the query is answered as failed once its replica
 * is known to be gone, and its scratch space was never in the shared store).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { quietLogger } from '../../src/logger.ts';
import { startSluice, type Sluice } from '../../src/server.ts';
import { PG_SKIP_REASON, PG_URL } from '../catalog/pg-test-schemas.ts';
import { openAdminSql, type AdminSql } from '../helpers/admin-sql.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { skipNote } from '../helpers/skip-note.ts';

const CHILD = fileURLToPath(new URL('./replica-child.ts', import.meta.url));
/** The one artifact both replicas race to commit (each in a session of its own, so neither is a repeat of the other). */
const RACED = 'SELECT g::int8 AS id, md5(g::text) AS h FROM generate_series(1, 20000) g';

type Call = (path: string, body?: unknown) => Promise<{ status: number; body: any }>;

function caller(url: string, token: () => string): Call {
  return async (path, body) => {
    const response = await fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-token': token(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(PG_SKIP_REASON !== null)(skipNote(PG_SKIP_REASON !== null, 'replica faults', PG_SKIP_REASON ?? ''), () => {
  const database = `sluice_faults_${randomBytes(4).toString('hex')}`;
  let admin: AdminSql;
  let s3: TestS3Server;
  const dirs: string[] = [];
  const inProcess: Sluice[] = [];
  let child: ChildProcess | undefined;
  let quota = 0;
  let env: Record<string, string> = {};

  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-replica-'));
    dirs.push(dir);
    return dir;
  };

  async function startInProcess(): Promise<{ sluice: Sluice; call: Call }> {
    const sluice = await startSluice(loadConfig({ ...env, SLUICE_DATA_DIR: freshDir() }), quietLogger);
    inProcess.push(sluice);
    await sluice.ready;
    return { sluice, call: caller(sluice.url, () => sluice.generatedToken!) };
  }

  beforeAll(async () => {
    admin = openAdminSql(PG_URL!);
    await admin.query(`CREATE DATABASE ${database}`);
    s3 = await startS3Server('sluice-faults');
    const catalogUrl = new URL(PG_URL!);
    catalogUrl.pathname = `/${database}`;
    env = {
      PORT: '0',
      DATABASE_URL: PG_URL!,
      SLUICE_CATALOG_URL: catalogUrl.toString(),
      SLUICE_ARTIFACT_URL: `s3://${s3.bucket}/faults`,
      SLUICE_S3_ENDPOINT: s3.endpoint,
      SLUICE_S3_FORCE_PATH_STYLE: 'true',
      SLUICE_RATE_LIMIT_PER_MINUTE: '1000000',
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID!,
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY!,
    };
    // The raced artifact's size, measured on a store of its own: the quota then fits one copy and a half.
    const probe = await startSluice(loadConfig({ PORT: '0', DATABASE_URL: PG_URL!, SLUICE_DATA_DIR: freshDir() }), quietLogger);
    await probe.ready;
    const measured = await caller(probe.url, () => probe.generatedToken!)('/api/queries', { sql: RACED, materialize: 'always' });
    await probe.stop();
    quota = Math.floor(measured.body.data.artifact.sizeBytes * 1.5);
    env.SLUICE_PRINCIPAL_QUOTA_BYTES = String(quota);
  }, 120_000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    for (const sluice of inProcess) await sluice.stop();
    await s3?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('two replicas committing at once under a quota for one: exactly one artifact, charged once', async () => {
    const [a, b] = await Promise.all([startInProcess(), startInProcess()]);
    const [ra, rb] = await Promise.all([
      a.call('/api/queries', { sql: RACED, materialize: 'always', sessionId: 'left' }),
      b.call('/api/queries', { sql: RACED, materialize: 'always', sessionId: 'right' }),
    ]);
    const decisions = [ra.body.data.artifact.decision, rb.body.data.artifact.decision].sort();
    expect(decisions).toEqual(['CREATED', 'DENIED']);
    expect([ra, rb].find((r) => r.body.data.artifact.decision === 'DENIED')!.body.data.artifact.reason).toBe('QUOTA_EXCEEDED');
    const usage = (await b.call('/api/usage')).body.data.principal;
    expect(usage.artifacts).toBe(1);
    expect(usage.logicalBytes).toBeLessThanOrEqual(quota);
  });

  it('a replica killed mid-export: the others serve on, nothing half-written appears, the query ends as failed', async () => {
    const survivor = inProcess[0]!;
    const call = caller(survivor.url, () => survivor.generatedToken!);
    const before = (await call('/api/usage')).body.data.principal;
    child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: { ...process.env, ...env, SLUICE_DATA_DIR: freshDir() }, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child!.stdout! }).once('line', resolve);
      child!.once('exit', (code) => reject(new Error(`the replica exited with ${code} before it was ready`)));
    });
    const doomed = JSON.parse(line) as { url: string; token: string };
    const started = await caller(doomed.url, () => doomed.token)('/api/queries', {
      sql: 'SELECT g::int8 AS id, md5(g::text) AS h FROM generate_series(1, 30000000) g',
      materialize: 'always',
      waitMs: 0,
    });
    expect(started.status).toBe(202);
    const id = started.body.data.queryId as string;
    // Seen from the survivor: rows are flowing on the doomed replica.
    await waitFor('rows written', async () => ((await call(`/api/queries/${id}`)).body.data?.progress.rowsWritten > 0 ? true : undefined), 60_000);
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));

    // The survivor serves on: a query, and the artifacts it knew.
    const fresh = await call('/api/queries', { sql: 'SELECT 1 AS one' });
    expect(fresh.body.data.state).toBe('SUCCEEDED');
    const listed = (await call('/api/artifacts')).body.data.artifacts;
    expect(listed.every((x: { state: string }) => x.state === 'COMMITTED')).toBe(true);
    expect((await call('/api/usage')).body.data.principal).toEqual(before);
    // Once its replica has been silent long enough, the query is answered as failed, not left running.
    const failed = await waitFor(
      'the lost query to be answered as failed',
      async () => {
        const r = await call(`/api/queries/${id}`);
        return r.status === 500 ? r : undefined;
      },
      120_000,
    );
    expect(failed.body).toMatchObject({ errorCode: 'INTERNAL', error: { details: { reason: 'REPLICA_LOST', state: 'FAILED' } } });
  }, 240_000);
});
