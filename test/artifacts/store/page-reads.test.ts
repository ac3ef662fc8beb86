/**
 * How much plain pages make DuckDB read, counted at the read workers, on a
 * real export into a real store. With windows (the server's way), a page
 * is cut from a row group a worker keeps decoded: the pages of one window
 * read its part once, on one worker of two, whatever their order; rows too
 * wide to keep and columns only DuckDB encodes go to statements. Without
 * them, a reader following its cursor gets pages cut from blocks read
 * once, unless the rows are so wide that the cache will not keep a block,
 * when each page is read on its own instead of a whole block per page.
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
import { WINDOW_ROWS } from '../../../src/artifacts/store/window-reads.ts';
import { MAX_BATCH, poolLanes, WindowBatches } from '../../../src/worker/window-batches.ts';
import { WorkerPool } from '../../../src/worker/worker-pool.ts';
import { createFixtures, type Fixtures } from '../store-fixtures.ts';
import { workerSettings } from '../../helpers/worker-settings.ts';
import { pageRows } from '../../../src/artifacts/read-page.ts';

const OWNER = { principal: 'alice', sessionId: 'default' };

/** A store over a local directory, its catalog in SQLite, its reads on `workers`. */
function storeIn(dir: string, workers: StoreWorkers): Store {
  const catalog = openSqliteCatalog({ file: join(dir, 'catalog.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 });
  const bytes = createLocalBytes({ root: join(dir, 'artifacts') });
  return createStore(
    { catalog, bytes, workers, stagingRoot: join(dir, 'staging'), downloadsRoot: join(dir, 'downloads'), now: () => new Date(), log: quietLogger, replica: 'test', checkpoint: () => undefined },
    async () => {
      bytes.close();
      await catalog.close();
    },
  );
}

/** The id of a new artifact of `sql`'s rows, exported by the fixtures and committed in `store`. */
async function committed(fixtures: Fixtures, store: Store, sql: string): Promise<string> {
  const staged = await fixtures.stage(store, sql);
  const outcome = await staged.staging.commit(OWNER, staged, 3600);
  if (outcome.decision !== 'CREATED') throw new Error(outcome.message);
  return outcome.artifact.id;
}

describe('pages of a reader following its cursor, read by statements', () => {
  let fixtures: Fixtures;
  let dir: string;
  let store: Store;
  let rowsRead = 0;
  /** Whether each read asked for the worker's single-threaded DuckDB, in order. */
  const smallFlags: boolean[] = [];

  beforeAll(async () => {
    fixtures = await createFixtures();
    dir = mkdtempSync(join(tmpdir(), 'sluice-page-reads-'));
    const { windows: _windows, ...statements } = fixtures.workers;
    const workers: StoreWorkers = {
      ...statements,
      read: async (sql, params, options) => {
        smallFlags.push(options?.small === true);
        const rows = await fixtures.workers.read(sql, params, options);
        rowsRead += rows.length;
        return rows;
      },
    };
    store = storeIn(dir, workers);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await fixtures?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const artifactOf = (sql: string) => committed(fixtures, store, sql);

  /** Rows DuckDB returned while the reader read `pages` pages of 100, each following the one before. */
  async function follow(id: string, pages: number): Promise<number> {
    const before = rowsRead;
    for (let page = 0; page < pages; page++) {
      const read = await store.read(OWNER.principal, id, { limit: 100, offset: page * 100 });
      expect(pageRows(read.rowsJson)[0]?.[0]).toBe(String(page * 100 + 1));
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

describe('plain pages cut from windows kept by the read workers', () => {
  let fixtures: Fixtures;
  let pool: WorkerPool;
  let dir: string;
  let store: Store;
  /** Per window read: whether the worker read the part for it, and which worker answered. */
  const windowReads: { read: boolean; kept: boolean }[] = [];
  /** The size of each batch of window reads a worker answered together. */
  const batches: number[] = [];
  let statements = 0;

  beforeAll(async () => {
    fixtures = await createFixtures();
    dir = mkdtempSync(join(tmpdir(), 'sluice-window-reads-'));
    // Two workers, as the server runs by default; windows of at most 8 MB each are kept (a quarter of the bound).
    pool = new WorkerPool(new URL('../../../workers/query-worker.ts', import.meta.url), 2, workerSettings({ duckdbThreads: 1, duckdbMemoryLimit: '256MB', windowBytes: 32 * 1024 * 1024 }), 2);
    await pool.loaded();
    const workers: StoreWorkers = {
      read: async (sql, params, options) => {
        statements += 1;
        return (await pool.run({ type: 'read', sql, params, small: options?.small === true }).result).rowsJson;
      },
      windows: (() => {
        const lanes = poolLanes(pool);
        const windows = new WindowBatches(
          {
            ...lanes,
            one: (task, lane) => (batches.push(1), lanes.one(task, lane)),
            many: (tasks, lane) => (batches.push(tasks.length), lanes.many(tasks, lane)),
          },
          pool.capacity,
        );
        return {
          read: async (task, affinity) => {
            const result = await windows.read(task, affinity);
            windowReads.push({ read: result.read, kept: result.kept });
            return result;
          },
          forget: (keys, affinity) => windows.forget(keys, affinity),
        };
      })(),
      writeFile: fixtures.workers.writeFile,
    };
    store = storeIn(dir, workers);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await pool?.close();
    await fixtures?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const artifactOf = (sql: string) => committed(fixtures, store, sql);

  it('reads a window once for all its pages, in any order and at once, and each page holds the rows of its offset', async () => {
    const id = await artifactOf(`SELECT g::int8 AS n, md5(g::text) AS h, (g % 3 = 0) AS b FROM generate_series(1, ${2 * WINDOW_ROWS}) g`);
    windowReads.length = 0;
    batches.length = 0;
    statements = 0;
    // Twenty pages of the second window, out of order and all in flight at once, with both workers free.
    const offsets = Array.from({ length: 20 }, (_, i) => WINDOW_ROWS + ((i * 7919) % (WINDOW_ROWS - 100)));
    const pages = await Promise.all(offsets.map((offset) => store.read(OWNER.principal, id, { limit: 99, offset })));
    pages.forEach((page, i) => {
      expect(pageRows(page.rowsJson).map((r) => r[0])).toEqual(Array.from({ length: 99 }, (_, k) => String(offsets[i]! + k + 1)));
      expect(page.more).toBe(true);
    });
    expect(windowReads.filter((w) => w.read)).toHaveLength(1);
    expect(windowReads).toHaveLength(20);
    expect(statements).toBe(0);
    // The first page went alone to the window's worker; those that came while it was busy went together, at most MAX_BATCH at a time.
    expect(batches[0]).toBe(1);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(20);
    expect(Math.max(...batches)).toBeGreaterThan(1);
    expect(Math.max(...batches)).toBeLessThanOrEqual(MAX_BATCH);
  });

  it('serves a reader that follows its cursor from a block read once, and only its first page from a window', async () => {
    const id = await artifactOf('SELECT g::int8 AS n FROM generate_series(1, 5000) g');
    windowReads.length = 0;
    statements = 0;
    for (let offset = 0; offset < 1000; offset += 100) {
      const page = await store.read(OWNER.principal, id, { limit: 100, offset });
      expect(pageRows(page.rowsJson).map((r) => r[0])).toEqual(Array.from({ length: 100 }, (_, k) => String(offset + k + 1)));
      expect(page.more).toBe(true);
    }
    // The first page was asked out of sequence; the nine after it, and the row past the last, are in the block of rows 0-1023.
    expect(windowReads).toHaveLength(1);
    expect(statements).toBe(1);
  });

  it('cuts a page across two windows and the last rows of the artifact', async () => {
    const id = await artifactOf(`SELECT g::int8 AS n FROM generate_series(1, ${WINDOW_ROWS + 500}) g`);
    const across = await store.read(OWNER.principal, id, { limit: 99, offset: WINDOW_ROWS - 50 });
    expect(pageRows(across.rowsJson).map((r) => r[0])).toEqual(Array.from({ length: 99 }, (_, k) => String(WINDOW_ROWS - 50 + k + 1)));
    expect(across.more).toBe(true);
    const last = await store.read(OWNER.principal, id, { limit: 99, offset: WINDOW_ROWS + 450 });
    expect(pageRows(last.rowsJson).map((r) => r[0])).toEqual(Array.from({ length: 50 }, (_, k) => String(WINDOW_ROWS + 450 + k + 1)));
    expect(last.more).toBe(false);
  });

  it('keeps no window too wide for its bound, and reads that artifact\'s next pages by statements', async () => {
    // About 430 bytes a row as kept: a whole window is some 13 MB, past the 8 MB a worker here keeps of one.
    const id = await artifactOf(`SELECT g::int8 AS n, repeat(md5(g::text), 9) AS wide FROM generate_series(1, ${WINDOW_ROWS}) g`);
    windowReads.length = 0;
    statements = 0;
    const first = await store.read(OWNER.principal, id, { limit: 99, offset: 20_000 });
    expect(pageRows(first.rowsJson)[0]![0]).toBe('20001');
    expect(windowReads).toEqual([{ read: true, kept: false }]);
    const next = await store.read(OWNER.principal, id, { limit: 99, offset: 21_000 });
    expect(pageRows(next.rowsJson)[0]![0]).toBe('21001');
    expect(windowReads).toHaveLength(1);
    expect(statements).toBe(1);
  });

  it('reads pages of an artifact whose stored rows pass 800 bytes by statements, without copying a window', async () => {
    // Sixty different md5s a row: about 2 kB that compress little.
    const wide = Array.from({ length: 60 }, (_, i) => `md5((g * ${i + 1})::text)`).join(' || ');
    const id = await artifactOf(`SELECT g::int8 AS n, ${wide} AS wide FROM generate_series(1, 3000) g`);
    windowReads.length = 0;
    statements = 0;
    const page = await store.read(OWNER.principal, id, { limit: 99, offset: 1000 });
    expect(pageRows(page.rowsJson)[0]![0]).toBe('1001');
    expect(windowReads).toHaveLength(0);
    expect(statements).toBe(1);
  });

  it('reads pages of columns only DuckDB encodes (arrays) by statements', async () => {
    const id = await artifactOf('SELECT g::int8 AS n, ARRAY[g, g + 1] AS pair FROM generate_series(1, 500) g');
    windowReads.length = 0;
    statements = 0;
    const page = await store.read(OWNER.principal, id, { limit: 10, offset: 100 });
    expect(pageRows(page.rowsJson)[0]).toEqual(['101', [101, 102]]);
    expect(windowReads).toHaveLength(0);
    expect(statements).toBe(1);
    // A projection without the array column is cut from a window.
    const projected = await store.read(OWNER.principal, id, { limit: 10, offset: 100, columns: ['n'] });
    expect(pageRows(projected.rowsJson)[0]).toEqual(['101']);
    expect(windowReads).toHaveLength(1);
  });
});
