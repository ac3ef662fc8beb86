/**
 * Staging puts each part into the byte store once: a part the export
 * announced (stagePart) is not put again by commit, even when its upload has
 * not ended by the time commit is called; a part never announced is put by
 * commit. On a real export into a
 * local store with the SQLite catalog.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import type { ByteStore } from '../../../src/artifacts/bytes/byte-store.ts';
import { createStore, type Store } from '../../../src/artifacts/store/create-store.ts';
import { openSqliteCatalog } from '../../../src/catalog/sqlite/sqlite-catalog.ts';
import { quietLogger } from '../../../src/logger.ts';
import { createFixtures, type Fixtures } from '../store-fixtures.ts';
import { pageRows } from '../../../src/artifacts/read-page.ts';

const OWNER = { principal: 'alice', sessionId: 'default' };
const SQL = 'SELECT g AS id, repeat(md5(g::text), 4) AS t FROM generate_series(1, 20) g';

describe('staging puts each part once', () => {
  let fixtures: Fixtures;
  let dir: string;
  let store: Store;
  const puts: string[] = [];

  beforeAll(async () => {
    fixtures = await createFixtures();
    dir = mkdtempSync(join(tmpdir(), 'sluice-staging-'));
    const catalog = openSqliteCatalog({ file: join(dir, 'catalog.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 });
    const local = createLocalBytes({ root: join(dir, 'artifacts') });
    const bytes: ByteStore = {
      ...local,
      putPart: async (part, file) => {
        puts.push(`${part.name} ${part.sha256}`);
        return local.putPart(part, file);
      },
    };
    const ctx = { catalog, bytes, workers: fixtures.workers, stagingRoot: join(dir, 'staging'), downloadsRoot: join(dir, 'downloads'), now: () => new Date(), log: quietLogger, replica: 'test', checkpoint: () => undefined };
    store = createStore(ctx, async () => {
      local.close();
      await catalog.close();
    });
  });

  afterAll(async () => {
    await store?.close();
    await fixtures?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commit does not put again a part whose upload is still under way', async () => {
    puts.length = 0;
    const staged = await fixtures.stage(store, SQL);
    for (const part of staged.parts) staged.staging.stagePart(part);
    // At once: none of the uploads queued above has ended yet.
    const outcome = await staged.staging.commit(OWNER, staged, 3600);
    expect(outcome.decision).toBe('CREATED');
    expect(puts).toEqual(staged.parts.map((p) => `${p.name} ${p.sha256}`));
    if (outcome.decision !== 'CREATED') return;
    const page = await store.read(OWNER.principal, outcome.artifact.id, { limit: 100, offset: 0 });
    expect(page.rowsJson.length).toBe(20);
  });

  it('commit puts the parts the export never announced', async () => {
    puts.length = 0;
    const staged = await fixtures.stage(store, SQL);
    const outcome = await staged.staging.commit(OWNER, staged, 3600);
    expect(outcome.decision).toBe('CREATED');
    expect(puts).toEqual(staged.parts.map((p) => `${p.name} ${p.sha256}`));
  });
});
