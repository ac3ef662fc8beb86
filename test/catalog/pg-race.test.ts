/**
 * Quotas across replicas: two catalogs (two connection pools, as two
 * replicas have) commit at the same moment. A third connection holds the
 * usage rows until both commits are waiting on the database, so the race is
 * certain rather than likely; a catalog that read its counters without
 * locking them would pass both quota checks and overshoot. The lease is
 * raced the same way: a check-then-write would hand it to both.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { openPgCatalog } from '../../src/catalog/postgres/pg-catalog.ts';
import { openAdminSql } from '../helpers/admin-sql.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { Clock, commitOk, commitRequest, hashOf, type RequestShape } from './catalog-fixtures.ts';
import { PG_SKIP_REASON, PG_URL, TestSchemas } from './pg-test-schemas.ts';

const schemas = new TestSchemas();
afterAll(() => schemas.dropAll());

interface Replicas {
  first: Catalog;
  second: Catalog;
  /** Holds `locks` (statements run in one transaction) until both replicas' commits wait on them, then lets go. */
  race<T>(locks: string[], both: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function replicas(quotas: { principal: number; workspace: number }): Promise<Replicas> {
  const schema = schemas.fresh();
  const names = [0, 1].map(() => `sluice-race-${randomBytes(4).toString('hex')}`);
  const clock = new Clock();
  const open = (applicationName: string) =>
    openPgCatalog({ url: PG_URL!, schema, maxConnections: 1, applicationName, principalQuotaBytes: quotas.principal, workspaceQuotaBytes: quotas.workspace, now: clock.now });
  const [first, second] = await Promise.all(names.map(open));
  const admin = openAdminSql(PG_URL!, { max: 2, searchPath: `"${schema}"` });
  const waiting = async () => {
    const rows = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ANY($1) AND wait_event_type = 'Lock'", [names]);
    return rows[0]!.n;
  };
  return {
    first: first!,
    second: second!,
    async race<R>(locks: string[], both: () => Promise<R>): Promise<R> {
      let result: Promise<R> | undefined;
      await admin.begin(async (tx) => {
        for (const statement of locks) await tx.query(statement);
        result = both();
        // Polls until both commits are blocked on the held rows: an event to wait for, not a duration.
        while ((await waiting()) < 2) await new Promise((r) => setTimeout(r, 10));
      });
      return result!;
    },
    async close() {
      await Promise.all([first!.close(), second!.close(), admin.end()]);
    },
  };
}

describe.skipIf(PG_SKIP_REASON !== null)(skipNote(PG_SKIP_REASON !== null, 'PostgreSQL catalog races', PG_SKIP_REASON ?? ''), () => {
  it('lets exactly one of two racing commits under a principal quota through', async () => {
    const r = await replicas({ principal: 160, workspace: 1e12 });
    await commitOk(r.first, { content: 'seed', size: 10 });
    const shapes: RequestShape[] = [{ content: 'r1', size: 100 }, { content: 'r2', size: 100 }];
    const outcomes = await r.race(["SELECT * FROM principal_usage WHERE principal = 'alice' FOR UPDATE", 'SELECT * FROM workspace_usage FOR UPDATE'], () =>
      Promise.all([r.first.commit(commitRequest(shapes[0])), r.second.commit(commitRequest(shapes[1]))]),
    );
    expect(outcomes.map((o) => o.decision).sort()).toEqual(['CREATED', 'DENIED']);
    expect(await r.first.usage('alice')).toMatchObject({ principal: { artifacts: 2, logicalBytes: 110 }, workspace: { artifacts: 2, physicalBytes: 110 } });
    const loser = outcomes[0]!.decision === 'DENIED' ? 'r1' : 'r2';
    expect(await r.second.blob(hashOf(loser))).toBeUndefined();
    await r.close();
  });

  it('lets exactly one of two principals racing for the last workspace bytes through', async () => {
    const r = await replicas({ principal: 1e12, workspace: 170 });
    await commitOk(r.first, { content: 'seed-bob', size: 10, principal: 'bob' });
    await commitOk(r.first, { content: 'seed-carol', size: 10, principal: 'carol' });
    const outcomes = await r.race(['SELECT * FROM workspace_usage FOR UPDATE'], () =>
      Promise.all([r.first.commit(commitRequest({ content: 'w1', size: 100, principal: 'bob' })), r.second.commit(commitRequest({ content: 'w2', size: 100, principal: 'carol' }))]),
    );
    expect(outcomes.map((o) => o.decision).sort()).toEqual(['CREATED', 'DENIED']);
    expect((await r.second.usage('bob')).workspace).toMatchObject({ artifacts: 3, physicalBytes: 120 });
    await r.close();
  });

  it('makes one artifact of the same commit sent to two replicas at once, charged once', async () => {
    const r = await replicas({ principal: 1e12, workspace: 1e12 });
    await commitOk(r.first, { content: 'seed', size: 10 });
    const outcomes = await r.race(["SELECT * FROM principal_usage WHERE principal = 'alice' FOR UPDATE"], () =>
      Promise.all([r.first.commit(commitRequest()), r.second.commit(commitRequest())]),
    );
    const ids = outcomes.map((o) => (o.decision === 'CREATED' ? o.artifact.id : o.message));
    expect(ids[0]).toBe(ids[1]);
    expect(outcomes.map((o) => o.decision === 'CREATED' && o.repeated).sort()).toEqual([false, true]);
    expect((await r.first.usage('alice')).principal).toMatchObject({ artifacts: 2, logicalBytes: 110 });
    await r.close();
  });

  it('gives a free lease to exactly one of two replicas asking at once', async () => {
    const r = await replicas({ principal: 1e12, workspace: 1e12 });
    // A lapsed holder's row, held uncommitted until both replicas wait on it: then both see it lapsed at once.
    const won = await r.race(["INSERT INTO leases (name, holder, expires_at) VALUES ('collect', 'lapsed', '2000-01-01T00:00:00Z')"], () =>
      Promise.all([r.first.tryLease('collect', 'replica-1', 60_000), r.second.tryLease('collect', 'replica-2', 60_000)]),
    );
    expect(won.sort()).toEqual([false, true]);
    await r.close();
  });
});
