/**
 * The worker pool: results and errors come back from the worker that ran the
 * task, events reach the caller, a running or queued task can be cancelled,
 * tasks wait in order, a worker that dies fails its task cleanly and a new
 * worker runs the next ones, and close lets running tasks finish. The test
 * worker answers with its thread id and how many tasks it has run, so which
 * worker ran what (and what never ran) is visible.
 */
import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/worker/worker-pool.ts';
import type { ReadResult, TaskEvent } from '../../src/worker/protocol.ts';
import { workerSettings } from '../helpers/worker-settings.ts';

const ENTRY = new URL('../fixtures/pool-worker.ts', import.meta.url);
const read = (sql: string) => ({ type: 'read' as const, sql, params: [] });

/** The thread that ran a task and how many tasks that thread had run, this one included. */
async function ran(task: { result: Promise<unknown> }): Promise<{ thread: number; served: number }> {
  const { rowsJson } = (await task.result) as ReadResult;
  const [thread, served] = JSON.parse(rowsJson[0]!) as [number, number];
  return { thread, served };
}

async function withPool(size: number, body: (pool: WorkerPool) => Promise<void>, eager?: number): Promise<void> {
  const pool = eager === undefined ? new WorkerPool(ENTRY, size, {}) : new WorkerPool(ENTRY, size, {}, eager);
  try {
    await body(pool);
  } finally {
    await pool.close();
  }
}

describe('WorkerPool', () => {
  it('runs a task on a worker thread and resolves with its result', async () => {
    await withPool(1, async (pool) => {
      const first = await ran(pool.run(read('ok')));
      expect(first.thread).not.toBe(threadId);
      expect(first.served).toBe(1);
      expect(await ran(pool.run(read('ok')))).toEqual({ thread: first.thread, served: 2 });
    });
  });

  it('passes the task’s events to onEvent, in order, before the result', async () => {
    await withPool(1, async (pool) => {
      const events: TaskEvent[] = [];
      const task = pool.run(read('progress'), (event) => events.push(event));
      expect((await ran(task)).served).toBe(1);
      expect(events).toEqual([expect.objectContaining({ type: 'progress', rows: 1, bytes: 10 }), expect.objectContaining({ type: 'progress', rows: 2, bytes: 20 })]);
    });
  });

  it('rejects with the error the worker sent, code, message and details, and the worker runs on', async () => {
    await withPool(1, async (pool) => {
      const failed = pool.run(read('fail'));
      await expect(failed.result).rejects.toMatchObject({ name: 'SluiceError', code: 'VALIDATION_ERROR', message: 'No such column.', details: { column: 'x' } });
      expect((await ran(pool.run(read('ok')))).served).toBe(2);
    });
  });

  it('rejects a task whose worker found the disk full with 507 and reason STORAGE_FULL, no path', async () => {
    await withPool(1, async (pool) => {
      const error: unknown = await pool.run(read('disk-full')).result.catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'SluiceError', code: 'INTERNAL', status: 507, details: { reason: 'STORAGE_FULL' } });
      expect((error as Error).message).not.toContain('/data');
    });
  });

  it('fails the task of a worker that dies with INTERNAL, and a new worker runs the next tasks', async () => {
    await withPool(1, async (pool) => {
      const before = await ran(pool.run(read('ok')));
      await expect(pool.run(read('die')).result).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('stopped unexpectedly') });
      const after = await ran(pool.run(read('ok')));
      expect(after.thread).not.toBe(before.thread);
      expect(after.served).toBe(1);
      expect(await ran(pool.run(read('ok')))).toEqual({ thread: after.thread, served: 2 });
      expect(pool.size).toBe(1);
    });
  });

  it('cancels a running task on its worker, which then takes the next task', async () => {
    await withPool(1, async (pool) => {
      const hanging = pool.run(read('hang'));
      // Once a second task is queued behind it, the first is surely on the worker.
      const next = pool.run(read('ok'));
      expect(pool.busy).toBe(1);
      hanging.cancel();
      await expect(hanging.result).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
      expect((await ran(next)).served).toBe(2);
    });
  });

  it('drops a cancelled queued task without running it', async () => {
    await withPool(1, async (pool) => {
      const hanging = pool.run(read('hang'));
      const queued = pool.run(read('ok'));
      queued.cancel();
      await expect(queued.result).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
      hanging.cancel();
      await expect(hanging.result).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
      // The worker has run the hanging task and this one: the cancelled one never reached it.
      expect((await ran(pool.run(read('ok')))).served).toBe(2);
    });
  });

  it('runs waiting tasks in the order they came', async () => {
    await withPool(1, async (pool) => {
      const hanging = pool.run(read('hang'));
      const waiting = [pool.run(read('ok')), pool.run(read('ok')), pool.run(read('ok'))];
      hanging.cancel();
      await expect(hanging.result).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
      expect(await Promise.all(waiting.map(async (t) => (await ran(t)).served))).toEqual([2, 3, 4]);
    });
  });

  it('runs tasks of one affinity on one worker, others on whichever is free, and a task waiting for its worker holds up no other', async () => {
    await withPool(
      2,
      async (pool) => {
        await pool.loaded();
        const threads = async (affinity: number) => new Set(await Promise.all(Array.from({ length: 6 }, () => ran(pool.run(read('ok'), undefined, affinity)).then((r) => r.thread))));
        const even = await threads(0);
        const odd = await threads(1);
        expect(even.size).toBe(1);
        expect(odd.size).toBe(1);
        expect([...even][0]).not.toBe([...odd][0]);
        // Affinities are taken modulo the pool's size.
        expect(await threads(4)).toEqual(even);
        // While the worker of affinity 0 is busy, a task for it waits, and one without affinity goes to the other.
        const slow = pool.run(read('slow'), undefined, 0);
        const waiting = pool.run(read('ok'), undefined, 0);
        const free = await ran(pool.run(read('ok')));
        expect(free.thread).toBe([...odd][0]);
        expect((await ran(waiting)).thread).toBe([...even][0]);
        await slow.result;
      },
      2,
    );
  });

  it('starts one worker and grows to its size only when tasks wait, never past it', async () => {
    await withPool(2, async (pool) => {
      expect(pool.size).toBe(1);
      const first = pool.run(read('hang'));
      const second = await ran(pool.run(read('ok')));
      expect(pool.size).toBe(2);
      const other = pool.run(read('hang'));
      const third = pool.run(read('ok'));
      expect(pool.size).toBe(2);
      expect(pool.busy).toBe(2);
      other.cancel();
      await expect(other.result).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
      // The freed worker, the one that ran `second`, takes the waiting task.
      expect(await ran(third)).toEqual({ thread: second.thread, served: 3 });
      first.cancel();
      await expect(first.result).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
    });
  });

  it('can start with no worker and starts one for the first task', async () => {
    await withPool(
      2,
      async (pool) => {
        expect(pool.size).toBe(0);
        expect((await ran(pool.run(read('ok')))).served).toBe(1);
        expect(pool.size).toBe(1);
      },
      0,
    );
  });

  it('on close lets a running task finish, fails the waiting ones, and refuses new ones', async () => {
    const pool = new WorkerPool(ENTRY, 1, {});
    await pool.loaded();
    const slow = pool.run(read('slow'));
    const waiting = pool.run(read('ok'));
    // close() rejects the waiting task at once, before this test could await it.
    const refusal = waiting.result.then(() => null, (error: unknown) => error);
    await pool.close();
    expect((await ran(slow)).served).toBe(1);
    expect(await refusal).toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('shutting down') });
    expect(() => pool.run(read('ok'))).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });

  it('closes right after starting the real query worker without taking the process down', async () => {
    for (let i = 0; i < 3; i++) {
      const pool = new WorkerPool(new URL('../../workers/query-worker.ts', import.meta.url), 2, workerSettings({ duckdbThreads: 1, duckdbMemoryLimit: '64MB' }));
      await expect(pool.close()).resolves.toBeUndefined();
      expect(() => pool.run(read('SELECT 1'))).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    }
    // This process is still here to run a pool.
    await withPool(1, async (pool) => {
      expect((await ran(pool.run(read('ok')))).served).toBe(1);
    });
  });
});
