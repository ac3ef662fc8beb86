/**
 * A query worker's DuckDB spills what outgrows its memory limit into the
 * directory the server gives it (under the data directory), one directory
 * per DuckDB instance, never into the process's working directory, which
 * may be read-only or the project's own checkout.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { instanceSpillDir, processSpillDir, sweepSpills } from '../../src/worker/spill-directory.ts';
import { WorkerPool } from '../../src/worker/worker-pool.ts';

const QUERY_WORKER = new URL('../../workers/query-worker.ts', import.meta.url);
const TEMP_DIRECTORY = "SELECT CAST(to_json([current_setting('temp_directory')::VARCHAR]) AS VARCHAR)";

describe('query worker: spill directory', () => {
  const spillDir = mkdtempSync(join(tmpdir(), 'sluice-spill-'));
  const pool = new WorkerPool(QUERY_WORKER, 1, { duckdbThreads: 2, duckdbMemoryLimit: '64MB', spillDir });
  afterAll(async () => {
    await pool.close();
    rmSync(spillDir, { recursive: true, force: true });
  });

  it('give each of the worker\'s DuckDB instances a directory of its own under the spill directory', async () => {
    const [[parallel]] = (await pool.run({ type: 'read', sql: TEMP_DIRECTORY, params: [] }).result).rowsJson.map((r) => JSON.parse(r)) as [[string]];
    const [[small]] = (await pool.run({ type: 'read', sql: TEMP_DIRECTORY, params: [], small: true }).result).rowsJson.map((r) => JSON.parse(r)) as [[string]];
    expect(parallel.startsWith(`${spillDir}/`)).toBe(true);
    expect(small.startsWith(`${spillDir}/`)).toBe(true);
    expect(small).not.toBe(parallel);
  });

  it('spill a sort larger than the memory limit there, leaving nothing in the working directory', async () => {
    const hadTmp = existsSync(join(process.cwd(), '.tmp'));
    const sql = "SELECT CAST(to_json([count(*)]) AS VARCHAR) FROM (SELECT x, md5(CAST(x AS VARCHAR)) || md5(CAST(x + 1 AS VARCHAR)) AS h FROM range(3000000) t(x) ORDER BY h)";
    expect((await pool.run({ type: 'read', sql, params: [] }).result).rowsJson.map((r) => JSON.parse(r))).toEqual([[3000000]]);
    expect(existsSync(join(process.cwd(), '.tmp'))).toBe(hadTmp);
    expect(readdirSync(spillDir).length).toBeGreaterThan(0);
  });

  it('sweep what processes that are gone left, an earlier one with this pid too, and nothing of a running one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sluice-spill-sweep-'));
    try {
      // A process that has ended: its pid names no running process (unless reused at once, which this test would show).
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
      const left = join(root, `${gone}-0a1b2c3d`);
      const ours = processSpillDir(root);
      // A process started again in a container often gets the pid its predecessor had.
      const predecessor = join(root, `${process.pid}-0a1b2c3d`);
      const running = join(root, `${process.ppid}-0a1b2c3d`);
      for (const dir of [left, ours, predecessor, running]) {
        mkdirSync(instanceSpillDir(dir, 1, 'main'), { recursive: true });
        writeFileSync(join(instanceSpillDir(dir, 1, 'main'), 'duckdb_temp_storage-0.tmp'), 'x');
      }
      writeFileSync(join(root, 'not-a-spill'), 'x');
      expect(ours).not.toBe(predecessor);
      expect(await sweepSpills(root, ours)).toBe(2);
      expect(readdirSync(root).sort()).toEqual([ours, running, join(root, 'not-a-spill')].map((d) => d.slice(root.length + 1)).sort());
      expect(await sweepSpills(join(root, 'absent'), ours)).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
