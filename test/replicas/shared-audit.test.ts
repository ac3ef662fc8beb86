/**
 * Two replicas on one PostgreSQL catalog keep one audit trail: what either
 * recorded, each one's admin route shows, in one order, and each entry
 * once.
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
import { skipNote } from '../helpers/skip-note.ts';

const ADMIN = 'audit-replicas-admin-01';
const READER = 'audit-replicas-reader-1';

interface Replica {
  sluice: Sluice;
  dataDir: string;
  call(path: string, init?: { token?: string; body?: unknown; requestId?: string }): Promise<{ status: number; body: any }>;
}

describe.skipIf(PG_SKIP_REASON !== null)(skipNote(PG_SKIP_REASON !== null, 'one audit trail for every replica', PG_SKIP_REASON ?? ''), () => {
  const database = `sluice_audit_${randomBytes(4).toString('hex')}`;
  let admin: AdminSql;
  const replicas: Replica[] = [];

  async function startReplica(catalogUrl: string): Promise<Replica> {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-audit-replica-'));
    const sluice = await startSluice(
      loadConfig({
        PORT: '0',
        SLUICE_DATA_DIR: dataDir,
        DATABASE_URL: PG_URL!,
        SLUICE_CATALOG_URL: catalogUrl,
        SLUICE_TOKENS: JSON.stringify([
          { token: ADMIN, principal: 'boss', roles: ['admin'] },
          { token: READER, principal: 'clerk', roles: ['reader'] },
        ]),
      }),
      quietLogger,
    );
    await sluice.ready;
    return {
      sluice,
      dataDir,
      async call(path, init = {}) {
        const response = await fetch(`${sluice.url}${path}`, {
          method: init.body === undefined ? 'GET' : 'POST',
          headers: { 'x-token': init.token ?? ADMIN, 'content-type': 'application/json', ...(init.requestId ? { 'x-request-id': init.requestId } : {}) },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        });
        return { status: response.status, body: await response.json() };
      },
    };
  }

  beforeAll(async () => {
    admin = openAdminSql(PG_URL!);
    await admin.query(`CREATE DATABASE ${database}`);
    const catalogUrl = new URL(PG_URL!);
    catalogUrl.pathname = `/${database}`;
    replicas.push(...(await Promise.all([startReplica(catalogUrl.toString()), startReplica(catalogUrl.toString())])));
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) {
      await r.sluice.stop();
      rmSync(r.dataDir, { recursive: true, force: true });
    }
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  it('shows what either replica recorded through both, newest first, each entry once', async () => {
    const [a, b] = replicas as [Replica, Replica];
    expect((await a.call('/api/queries', { token: READER, body: { sql: 'select 1 as one', materialize: 'never' }, requestId: 'on-a-query' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await b.call('/api/me', { token: 'not-a-token', requestId: 'on-b-signin' })).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await b.call('/api/queries', { token: READER, body: { sql: 'select 1; select 2' }, requestId: 'on-b-refused' })).status).toBe(400);

    const wanted = ['on-b-refused', 'on-b-signin', 'on-a-query'];
    const until = Date.now() + 15_000;
    let seen: Record<string, unknown>[][] = [];
    for (;;) {
      seen = await Promise.all([a, b].map(async (r) => (await r.call('/api/admin/audit?limit=50')).body.data.items));
      if (seen.every((items) => wanted.every((id) => items.some((e: any) => e.requestId === id))) || Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [viaA, viaB] = seen as [any[], any[]];
    expect(viaA).toEqual(viaB);
    expect(viaA.map((e) => e.requestId)).toEqual(wanted);
    expect(viaA.map((e) => [e.action, e.principal, e.outcome])).toEqual([
      ['query', 'clerk', 'refused'],
      ['sign_in', null, 'refused'],
      ['query', 'clerk', 'ok'],
    ]);
  });
});
