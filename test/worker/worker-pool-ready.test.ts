/**
 * Readiness of a worker pool means a worker has loaded and can take a task
 * now: a pool whose workers die while loading must never claim it, and one
 * whose loaded workers died and cannot be replaced must stop claiming it.
 */
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/worker/worker-pool.ts';
import type { Logger } from '../../src/logger.ts';
import { removableWorkerEntry } from '../helpers/removable-worker-entry.ts';
import { workerSettings } from '../helpers/worker-settings.ts';

const QUERY_WORKER = new URL('../../workers/query-worker.ts', import.meta.url);
const BROKEN_WORKER = new URL('../fixtures/broken-worker.ts', import.meta.url);
const CRASHING_WORKER = new URL('../fixtures/crashing-worker.ts', import.meta.url);

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line) => lines.push(line), error: (line) => lines.push(line) };
}

const settle = (promise: Promise<void>, ms: number) =>
  Promise.race([promise.then(() => 'ready' as const), new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), ms))]);

describe('WorkerPool.ready', () => {
  it('resolves once a worker has loaded, and that worker runs a task', async () => {
    const pool = new WorkerPool(QUERY_WORKER, 1, workerSettings({ duckdbThreads: 1, duckdbMemoryLimit: '128MB' }));
    try {
      await pool.ready();
      const { rowsJson } = await pool.run({ type: 'read', sql: "SELECT '[1]'", params: [] }).result;
      expect(rowsJson).toEqual(['[1]']);
    } finally {
      await pool.close();
    }
  });

  it('prestart() loads a worker before any task asks for one, once', async () => {
    const pool = new WorkerPool(QUERY_WORKER, 2, workerSettings({ duckdbThreads: 1, duckdbMemoryLimit: '128MB' }), 0);
    try {
      expect(pool.size).toBe(0);
      pool.prestart();
      pool.prestart();
      expect(pool.size).toBe(1);
      await pool.ready();
      expect((await pool.run({ type: 'read', sql: "SELECT '[2]'", params: [] }).result).rowsJson).toEqual(['[2]']);
      expect(pool.size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('never resolves while every worker fails to load, and says so in the log', async () => {
    const log = capture();
    const pool = new WorkerPool(BROKEN_WORKER, 1, {}, 1, log);
    try {
      await pool.loaded();
      expect(await settle(pool.ready(), 1_500)).toBe('waiting');
      expect(log.lines.some((l) => l.includes('stopped before it had loaded'))).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('rejects a wait for a worker that never loads once the pool is closed, so a shutdown need not wait for it', async () => {
    const pool = new WorkerPool(BROKEN_WORKER, 1, {}, 1, capture());
    const waiting = pool.ready();
    await pool.loaded();
    await pool.close();
    expect(await Promise.race([waiting.then(() => 'ready', (e: Error) => e.message), new Promise((r) => setTimeout(() => r('waiting'), 1_500))])).toMatch(/shutting down/);
    await expect(pool.ready()).rejects.toThrow(/shutting down/);
  });

  it('is not ready once its loaded worker has died and no replacement can load, and is again when one does', async () => {
    const entry = removableWorkerEntry(CRASHING_WORKER);
    const pool = new WorkerPool(entry.url, 1, {}, 1, capture());
    try {
      await pool.ready();
      expect(pool.isReady).toBe(true);
      entry.remove();
      await expect(pool.run({ type: 'read', sql: 'SELECT 1', params: [] }).result).rejects.toThrow(/stopped unexpectedly/);
      // The replacement started at once has now died loading; the next waits a second.
      await pool.loaded();
      expect(await settle(pool.ready(), 1_500)).toBe('waiting');
      expect(pool.isReady).toBe(false);

      entry.restore();
      expect(await settle(pool.ready(), 10_000)).toBe('ready');
      expect(pool.isReady).toBe(true);
    } finally {
      await pool.close();
      entry.dispose();
    }
  });
});
