/**
 * A read of parts this process has not hashed yet (a restart's first read)
 * runs DuckDB beside the hash check instead of after it, and answers only
 * once every part it read is known good: a check that fails wins even when
 * DuckDB read the bytes without complaint. On a real export into a real
 * store, opened a second time over the same directory as a restarted
 * process would.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ByteStore } from '../../../src/artifacts/bytes/byte-store.ts';
import { corrupt } from '../../../src/artifacts/bytes/content-check.ts';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { openSqliteCatalog } from '../../../src/catalog/sqlite/sqlite-catalog.ts';
import type { Catalog } from '../../../src/catalog/catalog.ts';
import { createStore, type Store } from '../../../src/artifacts/store/create-store.ts';
import type { StoreWorkers } from '../../../src/artifacts/store/store-context.ts';
import { quietLogger } from '../../../src/logger.ts';
import { createFixtures, type Fixtures } from '../store-fixtures.ts';

const OWNER = { principal: 'alice', sessionId: 'default' };
const SQL = 'SELECT g::int8 AS n, (g % 7)::int4 AS k, md5(g::text) AS h FROM generate_series(1, 20000) g';

/** How the restarted store's leases behave: as the local store does, or with a check held back or failed. */
type Mode = { kind: 'as-is' } | { kind: 'after-read'; fail: boolean };

describe('a first read checks its parts beside DuckDB', () => {
  let fixtures: Fixtures;
  let dir: string;
  let catalog: Catalog;
  let writer: Store;
  let mode: Mode = { kind: 'as-is' };
  /** Resolved by the restarted store's worker each time a read starts: a held-back check waits for it. */
  let readStarted: () => void = () => undefined;
  let reads = 0;
  const asked: boolean[] = [];
  /** For each window a plain page was cut from: whether the worker read it from the part (rather than from memory). */
  const windowsRead: boolean[] = [];

  function restartedStore(): Store {
    const bytes = createLocalBytes({ root: join(dir, 'artifacts') });
    const watched: ByteStore = {
      ...bytes,
      localPath: async (part, options) => {
        asked.push(options?.checkBeside === true);
        const lease = await bytes.localPath(part, options);
        if (mode.kind === 'as-is') return lease;
        const { fail } = mode;
        const started = new Promise<void>((resolve) => (readStarted = resolve));
        // The check ends only after DuckDB has started reading: a read that waited for it first would never start.
        const checked = started.then(async () => {
          await lease.checked;
          if (fail) throw corrupt(part.sha256, 'HASH_MISMATCH');
        });
        checked.catch(() => undefined);
        return { path: lease.path, checked, release: () => lease.release() };
      },
    };
    const workers: StoreWorkers = {
      ...fixtures.workers,
      read: async (sql, params, options) => {
        reads += 1;
        readStarted();
        return fixtures.workers.read(sql, params, options);
      },
      windows: {
        forget: (keys, affinity) => fixtures.workers.windows!.forget(keys, affinity),
        read: async (task, affinity) => {
          reads += 1;
          readStarted();
          const result = await fixtures.workers.windows!.read(task, affinity);
          windowsRead.push(result.read);
          return result;
        },
      },
    };
    return createStore(
      { catalog, bytes: watched, workers, stagingRoot: join(dir, 'staging'), downloadsRoot: join(dir, 'downloads'), now: () => new Date(), log: quietLogger, replica: 'test', checkpoint: () => undefined },
      async () => bytes.close(),
    );
  }

  beforeAll(async () => {
    fixtures = await createFixtures();
    dir = mkdtempSync(join(tmpdir(), 'sluice-check-beside-'));
    catalog = openSqliteCatalog({ file: join(dir, 'catalog.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 });
    const bytes = createLocalBytes({ root: join(dir, 'artifacts') });
    writer = createStore(
      { catalog, bytes, workers: fixtures.workers, stagingRoot: join(dir, 'staging'), downloadsRoot: join(dir, 'downloads'), now: () => new Date(), log: quietLogger, replica: 'test', checkpoint: () => undefined },
      async () => bytes.close(),
    );
  }, 120_000);
  afterAll(async () => {
    await writer?.close();
    await catalog?.close();
    await fixtures?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function artifact(): Promise<string> {
    const staged = await fixtures.stage(writer, SQL);
    const outcome = await staged.staging.commit(OWNER, staged, 3600);
    if (outcome.decision !== 'CREATED') throw new Error(outcome.message);
    return outcome.artifact.id;
  }

  const readsOf = (store: Store, id: string) => [
    () => store.read(OWNER.principal, id, { limit: 99, offset: 12_345 }),
    () => store.read(OWNER.principal, id, { limit: 5, offset: 0, sort: [{ column: 'k', direction: 'desc' }] }),
    () => store.aggregate(OWNER.principal, id, { groupBy: ['k'], metrics: [{ fn: 'count' }], limit: 10 }),
  ];

  it('starts DuckDB before the hash check ends, and answers the same rows once it passes', async () => {
    const id = await artifact();
    const expected = [];
    for (const read of readsOf(writer, id)) expected.push(await read());
    const store = restartedStore();
    try {
      mode = { kind: 'after-read', fail: false };
      asked.length = 0;
      const answers = [];
      for (const read of readsOf(store, id)) answers.push(await read());
      expect(answers).toEqual(expected);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every(Boolean)).toBe(true);
    } finally {
      mode = { kind: 'as-is' };
      await store.close();
    }
  });

  it('answers ARTIFACT_CORRUPT when the check fails after DuckDB read the bytes without complaint', async () => {
    const id = await artifact();
    const store = restartedStore();
    try {
      mode = { kind: 'after-read', fail: true };
      for (const read of readsOf(store, id)) {
        const before = reads;
        await expect(read()).rejects.toMatchObject({ code: 'ARTIFACT_CORRUPT' });
        // DuckDB did read: the answer it gave was held back and dropped.
        expect(reads).toBe(before + 1);
      }
      // The window read beside the failed check was dropped with the answer: the next page reads the part again.
      mode = { kind: 'as-is' };
      windowsRead.length = 0;
      await readsOf(store, id)[0]!();
      expect(windowsRead).toEqual([true]);
      await readsOf(store, id)[0]!();
      expect(windowsRead).toEqual([true]);
    } finally {
      mode = { kind: 'as-is' };
      await store.close();
    }
  });

  it('answers ARTIFACT_CORRUPT for bytes changed on disk with the same size and time', async () => {
    const id = await artifact();
    const record = await catalog.find(OWNER.principal, id);
    const blob = record!.blob!;
    const partDir = join(dir, 'artifacts', 'objects', blob.location);
    for (const name of readdirSync(partDir)) {
      const path = join(partDir, name);
      const { size, atime, mtime } = statSync(path);
      // One byte in the middle of the data, flipped; the size and the time stamp stay what they were.
      const fd = openSync(path, 'r+');
      const at = Math.floor(size / 2);
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, at);
      writeSync(fd, Buffer.from([byte[0]! ^ 0xff]), 0, 1, at);
      closeSync(fd);
      utimesSync(path, atime, mtime);
    }
    const store = restartedStore();
    try {
      for (const read of readsOf(store, id)) await expect(read()).rejects.toMatchObject({ code: 'ARTIFACT_CORRUPT' });
    } finally {
      await store.close();
    }
  });
});
