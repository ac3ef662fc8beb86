/**
 * How much a reader following its cursor makes DuckDB read: pages cut from
 * blocks read once, unless the rows are so wide that the cache will not keep
 * a block, when each page is read on its own instead of a whole block per
 * page. Counted at the read workers, on a real export into a real store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { openSqliteCatalog } from '../../../src/catalog/sqlite/sqlite-catalog.ts';
import { createStore, type Store } from '../../../src/artifacts/store/create-store.ts';
import type { StoreWorkers } from '../../../src/artifacts/store/store-context.ts';
import { quietLogger } from '../../../src/logger.ts';
import { createFixtures, type Fixtures } from '../store-fixtures.ts';

const OWNER = { principal: 'alice', sessionId: 'default' };

describe('pages of a reader following its cursor', () => {
  let fixtures: Fixtures;
  let dir: string;
  let store: Store;
  let rowsRead = 0;
  /** Whether each read asked for the worker's single-threaded DuckDB, in order. */
  const smallFlags: boolean[] = [];

  beforeAll(async () => {
    fixtures = await createFixtures();
    dir = mkdtempSync(join(tmpdir(), 'sluice-page-reads-'));
    const workers: StoreWorkers = {
      ...fixtures.workers,
      read: async (sql, params, options) => {
        smallFlags.push(options?.small === true);
        const rows = await fixtures.workers.read(sql, params, options);
        rowsRead += rows.length;
        return rows;
      },
    };
    const catalog = openSqliteCatalog({ file: join(dir, 'catalog.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 });
    const bytes = createLocalBytes({ root: join(dir, 'artifacts') });
    store = createStore(
      { catalog, bytes, workers, stagingRoot: join(dir, 'staging'), downloadsRoot: join(dir, 'downloads'), now: () => new Date(), log: quietLogger, replica: 'test', checkpoint: () => undefined },
      async () => {
        bytes.close();
        await catalog.close();
      },
    );
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await fixtures?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function artifactOf(sql: string): Promise<string> {
    const staged = await fixtures.stage(store, sql);
    const outcome = await staged.staging.commit(OWNER, staged, 3600);
    if (outcome.decision !== 'CREATED') throw new Error(outcome.message);
    return outcome.artifact.id;
  }

  /** Rows DuckDB returned while the reader read `pages` pages of 100, each following the one before. */
  async function follow(id: string, pages: number): Promise<number> {
    const before = rowsRead;
    for (let page = 0; page < pages; page++) {
      const read = await store.read(OWNER.principal, id, { limit: 100, offset: page * 100 });
      expect(read.rows[0]?.[0]).toBe(String(page * 100 + 1));
    }
    return rowsRead - before;
  }

  it('reads a block once for the pages it holds, when the cache keeps it', async () => {
    const id = await artifactOf('SELECT g::int8 AS n, md5(g::text) AS note FROM generate_series(1, 3000) g');
    // The first page on its own, then one 1024-row block for the next nine.
    expect(await follow(id, 10)).toBeLessThanOrEqual(101 + 1025);
  });

  it('reads each page on its own once a block is too wide to keep, not a block per page', async () => {
    // About 10 kB a row: a 1024-row block is past what the cache keeps of one answer.
    const id = await artifactOf("SELECT g::int8 AS n, repeat('x', 5000) AS wide FROM generate_series(1, 3000) g");
    // The first page, one block that is not kept, then pages of 100 (with the row that says more follow).
    expect(await follow(id, 6)).toBeLessThanOrEqual(101 + 1025 + 4 * 101);
  });

  it('sends plain pages and blocks to the single-threaded DuckDB, sorted, filtered and aggregate reads to the parallel one', async () => {
    const id = await artifactOf('SELECT g::int8 AS n, (g % 7)::int4 AS k FROM generate_series(1, 5000) g');
    const flagsOf = async (read: () => Promise<unknown>): Promise<boolean[]> => {
      smallFlags.length = 0;
      await read();
      return [...smallFlags];
    };
    expect(await flagsOf(() => store.read(OWNER.principal, id, { limit: 99, offset: 4321 }))).toEqual([true]);
    expect(await flagsOf(() => store.read(OWNER.principal, id, { limit: 1000, offset: 17 }))).toEqual([true]);
    expect(await flagsOf(() => store.read(OWNER.principal, id, { limit: 99, offset: 0, sort: [{ column: 'k', direction: 'desc' }] }))).toEqual([false]);
    expect(await flagsOf(() => store.read(OWNER.principal, id, { limit: 99, offset: 0, filters: [{ column: 'k', op: 'eq', value: 3 }] }))).toEqual([false]);
    expect(await flagsOf(() => store.aggregate(OWNER.principal, id, { groupBy: ['k'], metrics: [{ fn: 'count' }], limit: 10 }))).toEqual([false]);
  });
});
