/**
 * Crash safety of the local store: a child process is killed with SIGKILL
 * during an export, between the bytes' rename and the catalog commit, during
 * collection, and during session copies. After each, a fresh store on the
 * same data dir must show nothing half-written, keep every committed
 * artifact intact, and reclaim the stray bytes in its background sweep.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStore } from '../../src/artifacts/drivers/local.ts';
import { openSqlite } from '../../src/runtime/sqlite.ts';
import { createFixtures, type Fixtures } from './store-fixtures.ts';

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

async function reopenAndCheck(dataDir: string, keeper: string) {
  const store = createLocalStore({ dataDir, workers: fixtures.workers, principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 });
  try {
    // The committed artifact is intact and readable.
    const meta = store.get('alice', keeper);
    expect(meta.rowCount).toBe(5000);
    const page = await store.read('alice', keeper, { limit: 2, offset: 4998 });
    expect(page.rows).toEqual([['4999'], ['5000']]);
    // Nothing in any state but COMMITTED is listed; the background sweep removes what was left behind.
    for (const a of store.list('alice', undefined, undefined, 1000).artifacts) expect(a.state).toBe('COMMITTED');
    await store.sweepStaging();
    const root = join(dataDir, 'artifacts');
    expect(readdirSync(join(root, 'staging'))).toEqual([]);
    expect(readdirSync(join(root, 'trash'))).toEqual([]);
    // Bytes on disk are exactly the blobs the catalog knows, and the counters agree with the rows.
    const db = openSqlite(join(root, 'catalog.sqlite'));
    const blobs = db.prepare('SELECT hash, size_bytes, refs FROM blobs').all<{ hash: string; size_bytes: number; refs: number }>();
    const onDisk = readdirSync(join(root, 'objects')).flatMap((p) => readdirSync(join(root, 'objects', p)));
    const usage = store.usage('alice');
    db.close();
    // Referenced bytes are all there; nothing on disk is unknown (an unreferenced row may wait for the collector).
    for (const blob of blobs.filter((b) => b.refs > 0)) expect(onDisk).toContain(blob.hash);
    for (const hash of onDisk) expect(blobs.map((b) => b.hash)).toContain(hash);
    expect(usage.workspace.physicalBytes).toBe(blobs.reduce((s, b) => s + b.size_bytes, 0));
    return store;
  } catch (error) {
    store.close();
    throw error;
  }
}

describe('crash safety (SIGKILL)', () => {
  it('during an export: nothing half-written is visible, staged bytes are swept', async () => {
    const { dataDir, keeper } = killChildAt('export');
    const store = await reopenAndCheck(dataDir, keeper);
    expect(store.list('alice', undefined, undefined, 10).artifacts.map((a) => a.id)).toEqual([keeper]);
    store.close();
  });

  it('between the bytes and the catalog: the unreferenced bytes are reclaimed', async () => {
    const { dataDir, keeper } = killChildAt('commit:after-rename');
    const store = await reopenAndCheck(dataDir, keeper);
    expect(store.list('alice', undefined, undefined, 10).artifacts).toHaveLength(1);
    store.close();
  });

  it('during collection: the next round finishes it', async () => {
    const { dataDir, keeper } = killChildAt('collect:after-rename');
    const store = await reopenAndCheck(dataDir, keeper);
    await store.collect({ maxBlobs: 10, maxBytes: 1e12 });
    expect(store.usage('alice').workspace.physicalBytes).toBe(store.get('alice', keeper).sizeBytes);
    store.close();
  });

  it('during session copies: every copy is whole or absent', async () => {
    const { dataDir, keeper } = killChildAt('copy');
    const store = await reopenAndCheck(dataDir, keeper);
    const usage = store.usage('alice').principal;
    const listed = store.list('alice', undefined, undefined, 1000).artifacts;
    expect(usage.artifacts).toBe(listed.length);
    expect(usage.logicalBytes).toBe(listed.reduce((s, a) => s + a.sizeBytes, 0));
    store.close();
  });
});
