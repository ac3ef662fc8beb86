/**
 * The API thread's side of the row windows (row-windows.ts): pages of windows
 * go to the read worker their window's number picks, at most one batch in
 * flight a worker. The pages that arrive while it is busy wait here rather
 * than in the pool's queue, and go to it together when it is free: a worker
 * answers a batch with one DuckDB statement instead of one a page, and one
 * message each way. A page that finds its worker idle goes at once, alone,
 * so batching costs a page no wait it would not have had in the queue.
 */
import { fromErrorData } from '../errors.ts';
import type { Settled, WindowResult, WindowTask } from './protocol.ts';
import type { WorkerPool } from './worker-pool.ts';

/** Most pages a batch carries: enough to share a statement widely, few enough that its windows fit a worker's memory together. */
export const MAX_BATCH = 16;

interface Waiting {
  task: WindowTask;
  resolve: (result: WindowResult) => void;
  reject: (error: Error) => void;
}

interface Lane {
  busy: boolean;
  waiting: Waiting[];
}

/** How batches reach the workers: one task on the worker `lane` names, a batch of one as a plain window task. */
export interface WindowLanes {
  one(task: WindowTask, lane: number): Promise<WindowResult>;
  many(tasks: WindowTask[], lane: number): Promise<Settled<WindowResult>[]>;
  forget(keys: string[], lane: number): Promise<void>;
}

/** The store's WindowWorkers (artifacts/store/store-context.ts), by shape: the worker side imports nothing of the store's. */
export class WindowBatches {
  readonly #lanes: Lane[];
  readonly #send: WindowLanes;

  /** `lanes`: the read pool's size, so that a lane is a worker (the pool picks one by affinity modulo its size). */
  constructor(send: WindowLanes, lanes: number) {
    this.#send = send;
    this.#lanes = Array.from({ length: Math.max(1, lanes) }, () => ({ busy: false, waiting: [] }));
  }

  /** Pages waiting for their worker here (the pool's own queue does not count them). */
  get waiting(): number {
    return this.#lanes.reduce((sum, lane) => sum + lane.waiting.length, 0);
  }

  read(task: Omit<WindowTask, 'type'>, affinity: number): Promise<WindowResult> {
    const lane = affinity % this.#lanes.length;
    return new Promise((resolve, reject) => {
      this.#lanes[lane]!.waiting.push({ task: { type: 'read-window', ...task }, resolve, reject });
      this.#pump(lane);
    });
  }

  forget(keys: string[], affinity: number): Promise<void> {
    return this.#send.forget(keys, affinity % this.#lanes.length);
  }

  #pump(index: number): void {
    const lane = this.#lanes[index]!;
    if (lane.busy || lane.waiting.length === 0) return;
    const batch = lane.waiting.splice(0, MAX_BATCH);
    lane.busy = true;
    void this.#answer(batch, index).finally(() => {
      lane.busy = false;
      this.#pump(index);
    });
  }

  async #answer(batch: Waiting[], lane: number): Promise<void> {
    try {
      if (batch.length === 1) {
        batch[0]!.resolve(await this.#send.one(batch[0]!.task, lane));
        return;
      }
      const answers = await this.#send.many(
        batch.map((w) => w.task),
        lane,
      );
      batch.forEach((waiting, i) => {
        const answer = answers[i]!;
        if (answer.ok) waiting.resolve(answer.value);
        else waiting.reject(fromErrorData(answer.error));
      });
    } catch (error) {
      for (const waiting of batch) waiting.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** Lanes on the read pool's workers: `lane` is the affinity, which the pool takes modulo its size. */
export function poolLanes(pool: WorkerPool): WindowLanes {
  return {
    one: (task, lane) => pool.run(task, undefined, lane).result,
    many: (windows, lane) => pool.run({ type: 'read-windows', windows }, undefined, lane).result,
    forget: async (keys, lane) => void (await pool.run({ type: 'forget-windows', keys }, undefined, lane).result),
  };
}
