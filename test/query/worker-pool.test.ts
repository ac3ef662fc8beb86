/** The worker pool: a worker that dies fails its task cleanly and is replaced; queued tasks can be cancelled. */
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/query/worker-pool.ts';
import type { ReadResult } from '../../src/query/worker-protocol.ts';

const ENTRY = new URL('../fixtures/flaky-worker.ts', import.meta.url);
const read = (sql: string) => ({ type: 'read' as const, sql, params: [] });

describe('WorkerPool', () => {
  it('fails the task of a worker that dies with INTERNAL and replaces the worker', async () => {
    const pool = new WorkerPool(ENTRY, 1, {});
    try {
      await expect(pool.run<ReadResult>(read('ok')).result).resolves.toEqual({ rows: [[process.pid]] });
      await expect(pool.run(read('die')).result).rejects.toMatchObject({ code: 'INTERNAL' });
      // The replacement serves the next task, and the one after.
      await expect(pool.run<ReadResult>(read('ok')).result).resolves.toBeDefined();
      await expect(pool.run<ReadResult>(read('ok')).result).resolves.toBeDefined();
      expect(pool.size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('queues past its size and drops a cancelled queued task without running it', async () => {
    const pool = new WorkerPool(ENTRY, 1, {});
    try {
      const stuck = pool.run(read('hang'));
      const queued = pool.run(read('ok'));
      queued.cancel();
      await expect(queued.result).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
      expect(pool.busy).toBe(1);
      stuck.result.catch(() => undefined);
    } finally {
      await pool.close();
    }
  });

  it('starts one worker and grows to its size only when tasks wait', async () => {
    const pool = new WorkerPool(ENTRY, 2, {});
    try {
      expect(pool.size).toBe(1);
      const stuck = pool.run(read('hang'));
      stuck.result.catch(() => undefined);
      await expect(pool.run<ReadResult>(read('ok')).result).resolves.toBeDefined();
      expect(pool.size).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('can start with no worker and starts one for the first task', async () => {
    const pool = new WorkerPool(ENTRY, 2, {}, 0);
    try {
      expect(pool.size).toBe(0);
      await expect(pool.run<ReadResult>(read('ok')).result).resolves.toBeDefined();
      expect(pool.size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('lets a running task finish before it terminates the worker on close', async () => {
    const pool = new WorkerPool(ENTRY, 1, {});
    await pool.loaded();
    const slow = pool.run<ReadResult>(read('slow'));
    await pool.close();
    await expect(slow.result).resolves.toEqual({ rows: [['slow']] });
  });

  it('closes right after starting without taking the process down', async () => {
    for (let i = 0; i < 3; i++) await new WorkerPool(new URL('../../workers/query-worker.ts', import.meta.url), 2, { duckdbThreads: 1, duckdbMemoryLimit: '64MB' }).close();
  });
});
