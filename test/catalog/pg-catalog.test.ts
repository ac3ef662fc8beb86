/**
 * What only the PostgreSQL catalog has to prove: replicas starting together
 * on an empty schema migrate it exactly once, and a database that cannot be
 * reached (never, or no longer) is STORAGE_UNAVAILABLE without a credential
 * in sight.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openPgCatalog } from '../../src/catalog/postgres/pg-catalog.ts';
import { PG_MIGRATIONS } from '../../src/catalog/postgres/pg-migrations.ts';
import { openAdminSql } from '../helpers/admin-sql.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { switchableRelay } from '../artifacts/remote-store-setup.ts';
import { commitRequest, created, errorOf } from './catalog-fixtures.ts';
import { PG_SKIP_REASON, PG_URL, TestSchemas } from './pg-test-schemas.ts';

const schemas = new TestSchemas();
afterAll(() => schemas.dropAll());
const QUOTAS = { principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 };

describe.skipIf(PG_SKIP_REASON !== null)(skipNote(PG_SKIP_REASON !== null, 'PostgreSQL catalog', PG_SKIP_REASON ?? ''), () => {
  it('migrates an empty schema exactly once when five replicas open it at the same moment', async () => {
    const schema = schemas.fresh();
    const catalogs = await Promise.all(Array.from({ length: 5 }, () => openPgCatalog({ url: PG_URL!, schema, maxConnections: 1, ...QUOTAS })));
    const sql = openAdminSql(PG_URL!);
    try {
      const applied = await sql.query(`SELECT version, name, applied_at FROM "${schema}".schema_migrations ORDER BY version`);
      expect(applied.map((r) => [r.version, r.name])).toEqual(PG_MIGRATIONS.map((m) => [m.version, m.name]));
      // The one row migration 1 inserts is there once: a second run would have added it again or failed.
      expect((await sql.query(`SELECT count(*)::int AS n FROM "${schema}".workspace_usage`))[0]!.n).toBe(1);
      const reopened = await openPgCatalog({ url: PG_URL!, schema, maxConnections: 1, ...QUOTAS });
      const again = await sql.query(`SELECT version, applied_at FROM "${schema}".schema_migrations ORDER BY version`);
      expect(again.map((r) => [r.version, (r.applied_at as Date).toISOString()])).toEqual(applied.map((r) => [r.version, (r.applied_at as Date).toISOString()]));
      catalogs.push(reopened);
      for (const catalog of catalogs) expect((await catalog.usage('alice')).workspace.artifacts).toBe(0);
    } finally {
      await Promise.all(catalogs.map((c) => c.close()));
      await sql.end();
    }
  });

  it('answers STORAGE_UNAVAILABLE, with no credential in it, when the database cannot be reached at all', async () => {
    const url = new URL(PG_URL!);
    url.password = 'hunter2-catalog-secret';
    url.port = '1';
    const error = await errorOf(openPgCatalog({ url: url.toString(), schema: schemas.fresh(), ...QUOTAS }));
    expect(error).toMatchObject({ code: 'STORAGE_UNAVAILABLE', status: 503, details: { retryable: true } });
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('hunter2');
  });

  it('answers STORAGE_UNAVAILABLE when the database goes away under an open catalog', async () => {
    const link = await switchableRelay(new URL(PG_URL!));
    await link.forward();
    const catalog = await openPgCatalog({ url: link.urlOf(PG_URL!), schema: schemas.fresh(), maxConnections: 1, ...QUOTAS });
    await catalog.commit(commitRequest());
    await link.cut();
    const calls = [() => catalog.usage('alice'), () => catalog.commit(commitRequest({ content: 'b' })), () => catalog.tryLease('collect', 'a', 1000), () => catalog.ping()];
    for (const call of calls) expect(await errorOf(call())).toMatchObject({ code: 'STORAGE_UNAVAILABLE', status: 503 });
    await catalog.close();
  });

  it('fails a transaction whose connection dies under it as STORAGE_UNAVAILABLE, and lives on to commit the next one', async () => {
    const schema = schemas.fresh();
    const applicationName = `sluice-catalog-killed-${schema}`;
    const catalog = await openPgCatalog({ url: PG_URL!, schema, maxConnections: 1, applicationName, ...QUOTAS });
    const holder = openAdminSql(PG_URL!, { max: 2 });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      // Another session holds the workspace row, so the commit waits inside its transaction on its FOR UPDATE.
      const reserved = await holder.connect();
      await reserved.query('BEGIN');
      await reserved.query(`SELECT * FROM "${schema}".workspace_usage FOR UPDATE`);
      const commit = errorOf(catalog.commit(commitRequest()));
      let pid: number | undefined;
      for (let i = 0; i < 100 && pid === undefined; i++) {
        await new Promise((r) => setTimeout(r, 50));
        [{ pid } = { pid: undefined }] = await holder.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [applicationName]);
      }
      expect(pid).toBeDefined();
      await holder.query('SELECT pg_terminate_backend($1)', [pid!]);
      expect(await commit).toMatchObject({ code: 'STORAGE_UNAVAILABLE', status: 503 });
      await reserved.query('ROLLBACK');
      reserved.release();
      // The driver's own clean-up after a dead connection must not throw where nobody can catch it.
      await new Promise((r) => setTimeout(r, 200));
      expect(uncaught).toEqual([]);
      expect(created(await catalog.commit(commitRequest({ content: 'after' }))).artifact.rowCount).toBeGreaterThan(0);
    } finally {
      process.off('uncaughtException', onUncaught);
      await catalog.close();
      await holder.end();
    }
  });

  it('logs an idle connection that fails, with no credential in the line, and answers on a new one', async () => {
    const schema = schemas.fresh();
    const applicationName = `sluice-catalog-idle-${schema}`;
    const lines: string[] = [];
    const log = { info: (line: string) => void lines.push(line), error: (line: string) => void lines.push(line) };
    const catalog = await openPgCatalog({ url: PG_URL!, schema, maxConnections: 1, applicationName, log, ...QUOTAS });
    const killer = openAdminSql(PG_URL!);
    try {
      await catalog.usage('alice');
      await killer.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
      for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(lines).toEqual(['An idle connection of the artifact catalog failed; it is dropped, and the next statement opens another.']);
      expect((await catalog.usage('alice')).workspace.artifacts).toBe(0);
    } finally {
      await catalog.close();
      await killer.end();
    }
  });

  it('refuses a schema name that is not a plain identifier before connecting', async () => {
    expect((await errorOf(openPgCatalog({ url: PG_URL!, schema: 'x"; DROP SCHEMA public; --', ...QUOTAS }))).code).toBe('VALIDATION_ERROR');
  });
});
