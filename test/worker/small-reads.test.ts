/**
 * A plain page (a small read) runs on the worker's single-threaded DuckDB,
 * anything else on its parallel one; both answer the same statement alike.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/worker/worker-pool.ts';
import { workerSettings } from '../helpers/worker-settings.ts';

const QUERY_WORKER = new URL('../../workers/query-worker.ts', import.meta.url);
const THREADS = "SELECT CAST(to_json([current_setting('threads')::VARCHAR, current_setting('TimeZone')::VARCHAR]) AS VARCHAR)";

describe('query worker: small reads', () => {
  const pool = new WorkerPool(QUERY_WORKER, 1, workerSettings({ duckdbThreads: 2, duckdbMemoryLimit: '128MB' }));
  afterAll(() => pool.close());

  it('run a small read on one thread and the others on the worker\'s threads, both in UTC', async () => {
    expect((await pool.run({ type: 'read', sql: THREADS, params: [], small: true }).result).rowsJson.map((r) => JSON.parse(r))).toEqual([['1', 'UTC']]);
    expect((await pool.run({ type: 'read', sql: THREADS, params: [] }).result).rowsJson.map((r) => JSON.parse(r))).toEqual([['2', 'UTC']]);
  });

  it('answer a statement with parameters the same on both', async () => {
    const sql = 'SELECT CAST(to_json([x, x * 2]) AS VARCHAR) FROM range(?) t(x)';
    const small = (await pool.run({ type: 'read', sql, params: [3], small: true }).result).rowsJson.map((r) => JSON.parse(r));
    expect(small).toEqual([[0, 0], [1, 2], [2, 4]]);
    expect((await pool.run({ type: 'read', sql, params: [3] }).result).rowsJson.map((r) => JSON.parse(r))).toEqual(small);
  });

  it('answer each row as the text JSON.stringify writes of its values, whatever form DuckDB\'s text has', async () => {
    const sql = String.raw`SELECT '[1.0, 1e2, "\u00e9", "a\/b", {"k" : [ true ]}]'`;
    const { rowsJson } = await pool.run({ type: 'read', sql, params: [] }).result;
    expect(rowsJson).toEqual(['[1,100,"é","a/b",{"k":[true]}]']);
  });
});
