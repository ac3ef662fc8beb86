/**
 * The store's declared capabilities decide: a store that declares less
 * refuses a read, aggregate or download asking for more with
 * UNSUPPORTED_CAPABILITY naming the capability, before any statement runs
 * on the read workers; what it declares still works. On a real export into
 * a real store, with the capabilities narrowed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { STORE_CAPABILITIES } from '../../../src/artifacts/store/capabilities.ts';
import { createStore, type Store } from '../../../src/artifacts/store/create-store.ts';
import type { StoreWorkers } from '../../../src/artifacts/store/store-context.ts';
import type { Capabilities } from '../../../src/artifacts/types.ts';
import { openSqliteCatalog } from '../../../src/catalog/sqlite/sqlite-catalog.ts';
import { SluiceError } from '../../../src/errors.ts';
import { quietLogger } from '../../../src/logger.ts';
import { createFixtures, type Fixtures } from '../store-fixtures.ts';
import { pageRows } from '../../../src/artifacts/read-page.ts';

const OWNER = { principal: 'alice', sessionId: 'default' };
const NARROW: Capabilities = { projection: false, filterOps: ['eq'], sort: false, aggregate: false, formats: ['parquet'] };

async function refusal(promise: Promise<unknown>): Promise<{ code: string; capability: unknown }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SluiceError);
  return { code: (error as SluiceError).code, capability: (error as SluiceError).details?.capability };
}

describe('the store holds requests to its declared capabilities', () => {
  let fixtures: Fixtures;
  let dir: string;
  const stores: Store[] = [];
  let statements = 0;

  function storeWith(capabilities: Capabilities, name: string): Store {
    const workers: StoreWorkers = {
      ...fixtures.workers,
      read: async (sql, params) => {
        statements++;
        return fixtures.workers.read(sql, params);
      },
      writeFile: async (task) => {
        statements++;
        return fixtures.workers.writeFile(task);
      },
    };
    const catalog = openSqliteCatalog({ file: join(dir, `${name}.sqlite`), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 });
    const bytes = createLocalBytes({ root: join(dir, `${name}-artifacts`) });
    const ctx = { catalog, bytes, workers, stagingRoot: join(dir, `${name}-staging`), downloadsRoot: join(dir, `${name}-downloads`), now: () => new Date(), log: quietLogger, replica: 'test', checkpoint: () => undefined };
    const store = createStore(
      ctx,
      async () => {
        bytes.close();
        await catalog.close();
      },
      capabilities,
    );
    stores.push(store);
    return store;
  }

  async function artifactIn(store: Store): Promise<string> {
    const staged = await fixtures.stage(store, 'SELECT g AS id, (g % 3)::text AS k FROM generate_series(1, 50) g');
    const outcome = await staged.staging.commit(OWNER, staged, 3600);
    if (outcome.decision !== 'CREATED') throw new Error(outcome.message);
    return outcome.artifact.id;
  }

  beforeAll(async () => {
    fixtures = await createFixtures();
    dir = mkdtempSync(join(tmpdir(), 'sluice-capabilities-'));
  }, 120_000);
  afterAll(async () => {
    for (const store of stores) await store.close();
    await fixtures?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses what a narrowed store does not declare, naming the capability, before any statement runs', async () => {
    const store = storeWith(NARROW, 'narrow');
    expect(store.capabilities).toEqual(NARROW);
    const id = await artifactIn(store);
    statements = 0;
    const read = { limit: 10, offset: 0 };
    expect(await refusal(store.read(OWNER.principal, id, { ...read, columns: ['id'] }))).toEqual({ code: 'UNSUPPORTED_CAPABILITY', capability: 'projection' });
    expect(await refusal(store.read(OWNER.principal, id, { ...read, sort: [{ column: 'id', direction: 'desc' }] }))).toEqual({ code: 'UNSUPPORTED_CAPABILITY', capability: 'sort' });
    expect(await refusal(store.read(OWNER.principal, id, { ...read, filters: [{ column: 'k', op: 'ne', value: '1' }] }))).toEqual({ code: 'UNSUPPORTED_CAPABILITY', capability: 'filterOps' });
    expect(await refusal(store.aggregate(OWNER.principal, id, { metrics: [{ fn: 'count' }], limit: 10 }))).toEqual({ code: 'UNSUPPORTED_CAPABILITY', capability: 'aggregate' });
    expect(await refusal(store.download(OWNER.principal, id, 'csv'))).toEqual({ code: 'UNSUPPORTED_CAPABILITY', capability: 'formats' });
    expect(statements).toBe(0);
    // What it declares still answers: a filter with a declared op.
    const page = await store.read(OWNER.principal, id, { ...read, filters: [{ column: 'k', op: 'eq', value: '1' }] });
    expect(page.rowsJson.length).toBe(10);
    expect(statements).toBeGreaterThan(0);
  });

  it('answers the same requests on a store that declares everything', async () => {
    const store = storeWith(STORE_CAPABILITIES, 'full');
    const id = await artifactIn(store);
    const page = await store.read(OWNER.principal, id, { limit: 3, offset: 0, columns: ['id'], sort: [{ column: 'id', direction: 'desc' }], filters: [{ column: 'k', op: 'ne', value: '1' }] });
    expect(pageRows(page.rowsJson)).toEqual([[50], [48], [47]]);
    const counted = await store.aggregate(OWNER.principal, id, { metrics: [{ fn: 'count' }], limit: 10 });
    expect(counted.rows).toEqual([['50']]);
  });
});
