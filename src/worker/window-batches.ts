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
  kind: 'read';
  task: WindowTask;
  resolve: (result: WindowResult) => void;
  reject: (error: Error) => void;
}

interface Forgetting {
  kind: 'forget';
  keys: string[];
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Lane {
  busy: boolean;
  /** In the order they came: a forget goes after the pages queued before it, as it did in the pool's queue. */
  queue: (Waiting | Forgetting)[];
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
    this.#lanes = Array.from({ length: Math.max(1, lanes) }, () => ({ busy: false, queue: [] }));
  }

  /** Pages waiting for their worker here (the pool's own queue does not count them). */
  get waiting(): number {
    return this.#lanes.reduce((sum, lane) => sum + lane.queue.filter((item) => item.kind === 'read').length, 0);
  }

  read(task: Omit<WindowTask, 'type'>, affinity: number): Promise<WindowResult> {
    const lane = affinity % this.#lanes.length;
    return new Promise((resolve, reject) => {
      this.#lanes[lane]!.queue.push({ kind: 'read', task: { type: 'read-window', ...task }, resolve, reject });
      this.#pump(lane);
    });
  }

  /**
   * Drops kept windows (their part failed its check). It waits behind the pages already queued for
   * that worker: one of them sent after it would copy the damaged part again and keep it.
   */
  forget(keys: string[], affinity: number): Promise<void> {
    const lane = affinity % this.#lanes.length;
    return new Promise((resolve, reject) => {
      this.#lanes[lane]!.queue.push({ kind: 'forget', keys, resolve, reject });
      this.#pump(lane);
    });
  }

  #pump(index: number): void {
    const lane = this.#lanes[index]!;
    if (lane.busy || lane.queue.length === 0) return;
    lane.busy = true;
    const head = lane.queue[0]!;
    let step: Promise<void>;
    if (head.kind === 'forget') {
      lane.queue.shift();
      // A pool that is closed throws at once rather than rejecting: either way the forget fails, not the lane.
      step = (async () => this.#send.forget(head.keys, index))().then(head.resolve, head.reject);
    } else {
      // The pages up to the next forget, at most MAX_BATCH of them.
      const upTo = lane.queue.findIndex((item) => item.kind === 'forget');
      const batch = lane.queue.splice(0, Math.min(MAX_BATCH, upTo === -1 ? lane.queue.length : upTo)) as Waiting[];
      step = this.#answer(batch, index);
    }
    void step
      .catch(() => undefined)
      .finally(() => {
        lane.busy = false;
        this.#pump(index);
      });
  }

  async #answer(batch: Waiting[], lane: number): Promise<void> {
    if (batch.length === 1) return this.#alone(batch[0]!, lane);
    let answers: Settled<WindowResult>[];
    try {
      answers = await this.#send.many(
        batch.map((w) => w.task),
        lane,
      );
    } catch {
      // The batch failed as a whole (its worker stopped, say): each page is tried once on its own,
      // so that one page that brings a worker down does not take the others with it.
      await Promise.all(batch.map((waiting) => this.#alone(waiting, lane)));
      return;
    }
    batch.forEach((waiting, i) => {
      const answer = answers[i]!;
      if (answer.ok) waiting.resolve(answer.value);
      else waiting.reject(fromErrorData(answer.error));
    });
  }

  async #alone(waiting: Waiting, lane: number): Promise<void> {
    try {
      waiting.resolve(await this.#send.one(waiting.task, lane));
    } catch (error) {
      waiting.reject(error instanceof Error ? error : new Error(String(error)));
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
