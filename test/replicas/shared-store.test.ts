/**
 * Three replicas on one PostgreSQL catalog and one bucket, started together
 * on an empty catalog, answer for each other, each step of a client sent to
 * another replica: an artifact created through one is described, paged (a
 * cursor signed by one is accepted by the next), listed, copied and deleted
 * through the others; a query is polled and cancelled through replicas
 * other than the one running it. They share one generated admin token,
 * though each has its own data dir and so its own local secrets.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { quietLogger } from '../../src/logger.ts';
import { startSluice, type Sluice } from '../../src/server.ts';
import { PG_SKIP_REASON, PG_URL } from '../catalog/pg-test-schemas.ts';
import { openAdminSql, type AdminSql } from '../helpers/admin-sql.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { skipNote } from '../helpers/skip-note.ts';

interface Replica {
  sluice: Sluice;
  dataDir: string;
  call(path: string, body?: unknown, method?: string): Promise<{ status: number; body: any }>;
}

describe.skipIf(PG_SKIP_REASON !== null)(skipNote(PG_SKIP_REASON !== null, 'replicas sharing one store', PG_SKIP_REASON ?? ''), () => {
  const database = `sluice_replicas_${randomBytes(4).toString('hex')}`;
  let admin: AdminSql;
  let s3: TestS3Server;
  const replicas: Replica[] = [];
  let token = '';

  async function startReplica(): Promise<Replica> {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-replica-'));
    const catalogUrl = new URL(PG_URL!);
    catalogUrl.pathname = `/${database}`;
    const sluice = await startSluice(
      loadConfig({
        PORT: '0',
        SLUICE_DATA_DIR: dataDir,
        DATABASE_URL: PG_URL!,
        SLUICE_CATALOG_URL: catalogUrl.toString(),
        SLUICE_ARTIFACT_URL: `s3://${s3.bucket}/replicas`,
        SLUICE_S3_ENDPOINT: s3.endpoint,
        SLUICE_S3_FORCE_PATH_STYLE: 'true',
        SLUICE_RATE_LIMIT_PER_MINUTE: '1000000',
      }),
      quietLogger,
    );
    await sluice.ready;
    const call = async (path: string, body?: unknown, method?: string) => {
      const response = await fetch(`${sluice.url}${path}`, {
        method: method ?? (body === undefined ? 'GET' : 'POST'),
        headers: { 'x-token': token || (sluice.generatedToken ?? ''), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    return { sluice, dataDir, call };
  }

  beforeAll(async () => {
    admin = openAdminSql(PG_URL!);
    await admin.query(`CREATE DATABASE ${database}`);
    s3 = await startS3Server('sluice-replicas');
    // Started together on an empty catalog: the migrations run once, and all agree on the secrets.
    replicas.push(...(await Promise.all([startReplica(), startReplica(), startReplica()])));
    token = replicas[0]!.sluice.generatedToken!;
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) {
      await r.sluice.stop();
      rmSync(r.dataDir, { recursive: true, force: true });
    }
    await s3?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  it('generate one admin token between them', () => {
    const [a, b, c] = replicas;
    expect(a!.sluice.generatedToken).toMatch(/^slc_/);
    expect(b!.sluice.generatedToken).toBe(a!.sluice.generatedToken);
    expect(c!.sluice.generatedToken).toBe(a!.sluice.generatedToken);
  });

  it('serve an artifact created on one replica from the others: metadata, pages with a cursor from another, list, copy, delete', async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const created = await a.call('/api/queries', { sql: 'SELECT g AS id, g % 3 AS grp FROM generate_series(1, 250) g ORDER BY g', materialize: 'always', previewRows: 5 });
    expect(created.status).toBe(200);
    const id = created.body.data.artifact.id as string;
    expect((await b.call(`/api/artifacts/${id}`)).body.data).toMatchObject({ id, rowCount: 250, state: 'COMMITTED' });

    const first = await a.call(`/api/artifacts/${id}/read`, { limit: 50, filters: [{ column: 'grp', op: 'eq', value: 0 }] });
    const second = await b.call(`/api/artifacts/${id}/read`, { limit: 50, filters: [{ column: 'grp', op: 'eq', value: 0 }], cursor: first.body.data.nextCursor });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const ids = [...first.body.data.rows, ...second.body.data.rows].map((r: unknown[]) => r[0]);
    expect(ids).toEqual(Array.from({ length: 83 }, (_, i) => 3 * (i + 1)));
    expect(second.body.data.nextCursor).toBeNull();

    expect((await c.call('/api/artifacts')).body.data.artifacts.map((x: { id: string }) => x.id)).toContain(id);
    const copy = await b.call('/api/sessions/default/copy', { targetSessionId: 'elsewhere' });
    expect(copy.status).toBe(200);
    const copied = copy.body.data.mapping.find((m: { sourceArtifactId: string }) => m.sourceArtifactId === id).targetArtifactId as string;
    expect((await a.call(`/api/artifacts/${copied}`)).body.data.sessionId).toBe('elsewhere');

    expect((await c.call(`/api/artifacts/${id}`, undefined, 'DELETE')).status).toBe(200);
    expect((await a.call(`/api/artifacts/${id}`)).status).toBe(404);
    expect((await b.call(`/api/artifacts/${id}`)).status).toBe(404);
    expect((await a.call(`/api/artifacts/${copied}/read`, { limit: 1 })).body.data.rows).toEqual([[1, 1]]);
  });

  it('poll a query through another replica than the one running it, and cancel it there: the backend stops', async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const quick = await a.call('/api/queries', { sql: 'SELECT g FROM generate_series(1, 500) g', waitMs: 0, previewRows: 3 });
    const polled = await b.call(`/api/queries/${quick.body.data.queryId}?waitMs=20000`);
    expect(polled.status).toBe(200);
    expect(polled.body.data).toMatchObject({ state: 'SUCCEEDED', completeness: { status: 'INCOMPLETE', totalRows: 500 }, artifact: { decision: 'CREATED' } });
    expect(polled.body.data.preview.rows).toEqual([[1], [2], [3]]);

    const marker = `replica_cancel_${Date.now()}`;
    const slow = await a.call('/api/queries', { sql: `SELECT pg_sleep(60) AS ${marker}`, waitMs: 0 });
    expect(slow.status).toBe(202);
    const id = slow.body.data.queryId as string;
    expect((await b.call(`/api/queries/${id}`)).status).toBe(202);
    const cancelled = await c.call(`/api/queries/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ state: 'CANCELLED', artifact: { decision: 'CANCELLED' } });
    const running = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid()", [`%${marker}%`]);
    expect(running[0]!.n).toBe(0);
    expect((await a.call(`/api/queries/${id}`)).body.data.state).toBe('CANCELLED');
    // An unknown query is NOT_FOUND on this replica too.
    expect((await b.call('/api/queries/qry_doesnotexist')).status).toBe(404);
  });

  it('count quotas and usage once, across replicas', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const before = (await a.call('/api/usage')).body.data.principal;
    await b.call('/api/queries', { sql: 'SELECT g AS n FROM generate_series(1, 100) g', materialize: 'always' });
    const after = (await a.call('/api/usage')).body.data.principal;
    expect(after.artifacts).toBe(before.artifacts + 1);
  });
});
