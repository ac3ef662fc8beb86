import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteCatalog } from '../../src/catalog/sqlite/sqlite-catalog.ts';
import { SQLITE_MIGRATIONS } from '../../src/catalog/sqlite/sqlite-migrations.ts';
import { ArtifactRows } from '../fixtures/legacy-artifact-rows.ts';
import { CATALOG_SCHEMA } from '../../src/catalog/sqlite/sqlite-schema-v1.ts';
import { openSqlite } from '../../src/runtime/sqlite.ts';
import { testCatalog } from './catalog-contract.ts';
import { Clock, commitRequest, hashOf, T0 } from './catalog-fixtures.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function freshFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-catalog-'));
  dirs.push(dir);
  return join(dir, 'catalog.sqlite');
}

const QUOTAS = { principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 };

testCatalog('SQLite', async (setup) =>
  openSqliteCatalog({ file: freshFile(), principalQuotaBytes: setup.principalQuotaBytes ?? 1e12, workspaceQuotaBytes: setup.workspaceQuotaBytes ?? 1e12, now: setup.now }),
);

describe('SQLite catalog', () => {
  it('adopts a catalog the local store wrote, counters, tombstones and unreferenced blobs included', async () => {
    const file = freshFile();
    const db = openSqlite(file);
    db.exec(CATALOG_SCHEMA);
    const rows = new ArtifactRows(db);
    const live = commitRequest({ content: 'live' });
    const dead = commitRequest({ content: 'dead' });
    const meta = (id: string, request: typeof live) => ({
      id, state: 'COMMITTED' as const, principal: 'alice', sessionId: 'default', sql: request.sql, datasource: 'default', columns: request.columns,
      rowCount: 10, sizeBytes: 100, coverage: 'COMPLETE' as const, boundedBy: null, createdAt: T0.toISOString(), expiresAt: '2026-03-01T13:00:00.000Z',
    });
    for (const [id, request] of [['art_live', live], ['art_dead', dead]] as const) {
      rows.insertBlob(request.blob.hash, request.blob.location, request.blob.parts, 100);
      rows.insertArtifact(meta(id, request), request.blob.hash);
    }
    rows.release(rows.find('alice', 'art_dead')!, 'DELETED');
    db.close();

    const clock = new Clock();
    const catalog = openSqliteCatalog({ file, ...QUOTAS, now: clock.now });
    expect((await catalog.find('alice', 'art_live'))?.meta).toMatchObject({ state: 'COMMITTED', sizeBytes: 100 });
    expect(await catalog.usage('alice')).toMatchObject({ principal: { artifacts: 1, logicalBytes: 100 }, workspace: { artifacts: 1, physicalBytes: 200 } });
    // Released before releases were timed: offered under any watermark, purged by its expiry.
    expect((await catalog.unreferencedBlobs(new Date(0), 10)).map((b) => b.hash)).toEqual([hashOf('dead')]);
    const repeated = await catalog.commit(live);
    expect(repeated).toMatchObject({ decision: 'CREATED', repeated: true, artifact: { id: 'art_live' } });
    expect(await catalog.purgeTombstones(clock.advance(3600_000), 10)).toEqual({ count: 1, more: false });
    await catalog.close();

    const reopened = openSqliteCatalog({ file, ...QUOTAS, now: clock.now });
    const probe = openSqlite(file);
    const applied = probe.prepare('SELECT version FROM schema_migrations ORDER BY version').all<{ version: number }>();
    probe.close();
    expect(applied.map((r) => r.version)).toEqual(SQLITE_MIGRATIONS.map((m) => m.version));
    await reopened.close();
  });

  it('keeps its file small: a new file vacuums incrementally, an older one is switched once, and freed pages go back', async () => {
    const pragma = (file: string, name: string) => {
      const db = openSqlite(file);
      const value = Object.values(db.prepare(`PRAGMA ${name}`).all<Record<string, number>>()[0]!)[0];
      db.close();
      return value;
    };
    const fresh = freshFile();
    const catalog = openSqliteCatalog({ file: fresh, ...QUOTAS });
    for (let i = 0; i < 300; i++) await catalog.commit(commitRequest({ content: `c${i}`, sql: `select ${i} -- ${'x'.repeat(2000)}` }));
    expect(pragma(fresh, 'auto_vacuum')).toBe(2);
    await catalog.retireSession('alice', 'default');
    await catalog.purgeTombstones(new Date('2100-01-01T00:00:00Z'), 1000);
    await catalog.maintain();
    expect(pragma(fresh, 'freelist_count')).toBe(0);
    await catalog.close();

    const older = freshFile();
    const db = openSqlite(older);
    db.exec(CATALOG_SCHEMA);
    db.close();
    const adopted = openSqliteCatalog({ file: older, ...QUOTAS });
    expect(pragma(older, 'auto_vacuum')).toBe(0);
    await adopted.commit(commitRequest({ content: 'kept' }));
    await adopted.maintain();
    expect(pragma(older, 'auto_vacuum')).toBe(2);
    expect((await adopted.usage('alice')).principal.artifacts).toBe(1);
    await adopted.close();
  });

  it('keeps commits issued at once in this process from overshooting a quota', async () => {
    const catalog = openSqliteCatalog({ file: freshFile(), principalQuotaBytes: 150, workspaceQuotaBytes: 1e12 });
    const outcomes = await Promise.all(['a', 'b', 'c'].map((content) => catalog.commit(commitRequest({ content, size: 100 }))));
    expect(outcomes.map((o) => o.decision).sort()).toEqual(['CREATED', 'DENIED', 'DENIED']);
    expect((await catalog.usage('alice')).principal).toMatchObject({ artifacts: 1, logicalBytes: 100 });
    await catalog.close();
  });
});
