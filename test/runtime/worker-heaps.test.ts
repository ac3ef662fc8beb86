/**
 * roomForWorkerBuffers: a worker started after it runs far fewer full
 * collections while it reads windows (fixtures/window-turnover.ts: the
 * read worker's own column-window code over a Parquet file) than one
 * started before it. Counted by the worker's 'gc' performance entries: the
 * collector's decisions, not time. The flag is the process's, so this file
 * (a process of its own under vitest's forks) measures the worker before
 * it first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWorker } from '../../src/runtime/spawn-worker.ts';
import { roomForWorkerBuffers } from '../../src/runtime/worker-heaps.ts';

const GROUPS = 12;
const GROUP_ROWS = 30_720;
let dir: string;
let path: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-worker-heaps-'));
  path = join(dir, 'rows.parquet');
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  // Seven columns as the pages bench makes them, in row groups of a part's size.
  await connection.run(`COPY (SELECT g::INT8 AS id, md5(g::TEXT) AS h, (g % 1000)::INT4 AS score, TIMESTAMPTZ '2026-01-01' + to_seconds(g) AS stamp,
    (g * 0.5)::DOUBLE AS x, g % 7 = 0 AS flag, 'name-' || (g % 5000) AS label FROM range(${GROUPS * GROUP_ROWS}) t(g))
    TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE ${GROUP_ROWS})`);
  connection.closeSync();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fullCollections(): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = spawnWorker(new URL('./fixtures/window-turnover.ts', import.meta.url), { workerData: { path, groups: GROUPS, groupRows: GROUP_ROWS, windows: 150 } });
    worker.once('message', (count: number) => {
      resolve(count);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('roomForWorkerBuffers', () => {
  it('lets a worker started after it read windows with far fewer full collections', async () => {
    const before = await fullCollections();
    roomForWorkerBuffers();
    roomForWorkerBuffers();
    const after = await fullCollections();
    // Without the room, a full collection every few windows (13-22 seen on Node 20, 23-34 on 22, 28-33 on 24); with it 6-8.
    expect(before).toBeGreaterThanOrEqual(10);
    expect(after).toBeLessThanOrEqual(before * 0.6);
  }, 60_000);
});
