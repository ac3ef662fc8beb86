/**
 * Crash safety of the store (SQLite catalog, local bytes: the default): a
 * child process is killed with SIGKILL during an export, between the upload
 * of the bytes and the catalog commit, during collection, and during
 * session copies. After each, a fresh store on the same data dir must show
 * nothing half-written, keep every committed artifact intact, and reclaim
 * the stray bytes: scratch directories at start, unreferenced uploads in a
 * collection round once they are older than the grace period.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/artifacts/store/open-store.ts';
import { GRACE_MS } from '../../src/artifacts/store/store-collect.ts';
import { loadConfig } from '../../src/config.ts';
import { quietLogger } from '../../src/logger.ts';
import { openSqlite } from '../../src/runtime/sqlite.ts';
import { createFixtures, type Fixtures } from './store-fixtures.ts';
import { pageRows } from '../../src/artifacts/read-page.ts';

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
let fixtures: Fixtures;
const dirs: string[] = [];

beforeAll(async () => {
  fixtures = await createFixtures();
});
afterAll(async () => {
  await fixtures.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function killChildAt(point: string): { dataDir: string; keeper: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-crash-'));
  dirs.push(dataDir);
  const child = spawnSync(process.execPath, ['--import', 'tsx', CHILD, dataDir, point], { encoding: 'utf8', timeout: 120_000 });
  expect(child.signal, child.stderr).toBe('SIGKILL');
  const keeper = (JSON.parse(child.stdout.split('\n')[0]!) as { keeper: string }).keeper;
  return { dataDir, keeper };
}

/**
 * Waits until the test database answers a statement. The embedded database
 * (PGlite) cannot interrupt a statement and serves one at a time: it runs a
 * killed child's export to its end, and the next child's connection would
 * wait for it past its connect timeout. A real PostgreSQL answers at once.
 */
async function untilDatabaseAnswers(): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query('SELECT 1');
  } finally {
    await client.end();
  }
}

/** Upload locations on disk: `objects/<ab>/<location rest>`. */
function locationsOnDisk(root: string): string[] {
  const objects = join(root, 'objects');
  if (!existsSync(objects)) return [];
  return readdirSync(objects).flatMap((fan) => readdirSync(join(objects, fan)).map((rest) => `${fan}/${rest}`));
}

async function reopenAndCheck(dataDir: string, keeper: string) {
  // A day later: every stray upload is past the grace period.
  const { store, catalog } = openStore(loadConfig({ SLUICE_DATA_DIR: dataDir }), { workers: fixtures.workers, log: quietLogger, now: () => new Date(Date.now() + 86_400_000 + GRACE_MS) });
  await catalog.opened;
  try {
    // The committed artifact is intact and readable.
    expect((await store.get('alice', keeper)).rowCount).toBe(5000);
    expect(pageRows((await store.read('alice', keeper, { limit: 2, offset: 4998 })).rowsJson)).toEqual([['4999'], ['5000']]);
    // Nothing in any state but COMMITTED is listed; the start-up sweep and one round remove what was left behind.
    for (const a of (await store.list('alice', undefined, undefined, 1000)).artifacts) expect(a.state).toBe('COMMITTED');
    await store.sweepScratch();
    await store.collect({ maxBlobs: 10, maxBytes: 1e12 });
    const root = join(dataDir, 'artifacts');
    expect(readdirSync(join(root, 'staging'))).toEqual([]);
    // Uploads on disk are exactly the blobs the catalog knows, and the counters agree with the rows.
    const db = openSqlite(join(root, 'catalog.sqlite'));
    const blobs = db.prepare('SELECT location, size_bytes, refs FROM blobs').all<{ location: string; size_bytes: number; refs: number }>();
    db.close();
    const onDisk = locationsOnDisk(root);
    for (const blob of blobs.filter((b) => b.refs > 0)) expect(onDisk).toContain(blob.location);
    for (const location of onDisk) expect(blobs.map((b) => b.location)).toContain(location);
    expect((await store.usage('alice')).workspace.physicalBytes).toBe(blobs.reduce((s, b) => s + b.size_bytes, 0));
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

describe('crash safety (SIGKILL)', () => {
  it('during an export: nothing half-written is visible, staged bytes are swept', async () => {
    const { dataDir, keeper } = killChildAt('export');
    const store = await reopenAndCheck(dataDir, keeper);
    expect((await store.list('alice', undefined, undefined, 10)).artifacts.map((a) => a.id)).toEqual([keeper]);
    await store.close();
    await untilDatabaseAnswers();
  }, 180_000);

  it('between the upload and the catalog: the unreferenced upload is reclaimed', async () => {
    const { dataDir, keeper } = killChildAt('commit:after-upload');
    const store = await reopenAndCheck(dataDir, keeper);
    expect((await store.list('alice', undefined, undefined, 10)).artifacts).toHaveLength(1);
    await store.close();
  });

  it('during collection: the next round finishes it', async () => {
    const { dataDir, keeper } = killChildAt('collect:after-delete');
    const store = await reopenAndCheck(dataDir, keeper);
    expect((await store.usage('alice')).workspace.physicalBytes).toBe((await store.get('alice', keeper)).sizeBytes);
    await store.close();
  });

  it('during session copies: every copy is whole or absent', async () => {
    const { dataDir, keeper } = killChildAt('copy');
    const store = await reopenAndCheck(dataDir, keeper);
    const usage = (await store.usage('alice')).principal;
    const listed = (await store.list('alice', undefined, undefined, 1000)).artifacts;
    expect(usage.artifacts).toBe(listed.length);
    expect(usage.logicalBytes).toBe(listed.reduce((s, a) => s + a.sizeBytes, 0));
    await store.close();
  });
});
