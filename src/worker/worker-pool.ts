/**
 * A pool of worker threads that run tasks one at a time each. It starts
 * with `eager` workers and grows to its size only when tasks wait (each worker holds its
 * own module graph and DuckDB, tens of MB, so idle capacity is not kept
 * warm). Tasks wait in order for a free worker; a cancelled task is dropped from the queue
 * or told to stop; a worker that dies fails its task cleanly and is replaced,
 * so one crash never takes the API or other queries with it.
 */
import type { Worker } from 'node:worker_threads';
import { fromErrorData, SluiceError } from '../errors.ts';
import { consoleLogger, type Logger } from '../logger.ts';
import { spawnWorker } from '../runtime/spawn-worker.ts';
import type { FromWorker, ResultOf, Task, TaskEvent, ToWorker } from './protocol.ts';

interface Job {
  taskId: number;
  task: Task;
  /** The worker this task should run on (its number modulo the pool's size), for state that worker keeps; none: any. */
  affinity?: number;
  onEvent: (event: TaskEvent) => void;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  /** Resolves when the worker has loaded (or exited): only then is terminating it safe. */
  loaded: Promise<void>;
  /** True once the worker said it is ready to take tasks. */
  ready: boolean;
}

/** How long close() waits for workers still loading or still running a task before terminating them anyway. */
const LOAD_WAIT_MS = 30_000;
/** A worker that died before it ever loaded is replaced after this pause, so a broken entry does not spin. */
const RESPAWN_AFTER_LOAD_FAILURE_MS = 1_000;

const shuttingDown = () => new SluiceError('INTERNAL', 'The server is shutting down.');

export interface RunningTask<T> {
  taskId: number;
  result: Promise<T>;
  cancel(): void;
}

export class WorkerPool {
  readonly #entry: URL;
  readonly #workerData: unknown;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  readonly #maxSize: number;
  readonly #log: Logger;
  #nextTaskId = 1;
  #closed = false;
  /** Callers of ready() waiting for the next worker to load. */
  readonly #readyWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  /** `eager` workers start at once, so the first tasks do not wait for a thread to load. */
  constructor(entry: URL, size: number, workerData: unknown, eager = 1, log: Logger = consoleLogger) {
    this.#entry = entry;
    this.#workerData = workerData;
    this.#maxSize = size;
    this.#log = log;
    for (let i = 0; i < Math.min(eager, size); i++) this.#slots.push(this.#spawn());
  }

  /** Resolves when the workers started so far have loaded, or exited trying. */
  async loaded(): Promise<void> {
    await Promise.all(this.#slots.map((s) => s.loaded));
  }

  /**
   * True while a live worker has loaded its modules and DuckDB and so can
   * take a task (busy ones count: tasks wait for them). It turns false again
   * when the last such worker dies and no replacement has loaded, so
   * readiness is never claimed by a pool that would fail every task.
   */
  get isReady(): boolean {
    return !this.#closed && this.#slots.some((s) => s.ready);
  }

  /**
   * Resolves when isReady is true: now, or when the next worker loads; never while every worker
   * fails to load. Rejects once the pool is closed, since no worker can load after that: a caller
   * waiting for the first worker (start-up) must not keep the shutdown waiting on it.
   */
  ready(): Promise<void> {
    if (this.#closed) return Promise.reject(shuttingDown());
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve, reject) => this.#readyWaiters.push({ resolve, reject }));
  }

  /** Starts one worker if none is alive yet, so the first task does not wait for a thread to load. */
  prestart(): void {
    if (this.#slots.length === 0 && !this.#closed) this.#slots.push(this.#spawn());
  }

  /** The pool's size: the most workers it runs; a task's affinity picks one modulo this. */
  get capacity(): number {
    return this.#maxSize;
  }

  /** Workers alive now (at most the pool's size). */
  get size(): number {
    return this.#slots.length;
  }

  get busy(): number {
    return this.#slots.filter((s) => s.job !== null).length;
  }

  /** Tasks waiting for a free worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Queues a task. With `affinity`, it waits for the worker that number picks (modulo the pool's size)
   * rather than taking any free one, so tasks that share state kept in a worker meet it there; until that
   * worker has started, any will do.
   */
  run<T extends Task>(task: T, onEvent: (event: TaskEvent) => void = () => undefined, affinity?: number): RunningTask<ResultOf<T>> {
    if (this.#closed) throw shuttingDown();
    const taskId = this.#nextTaskId++;
    let job!: Job;
    const result = new Promise<ResultOf<T>>((resolve, reject) => {
      job = { taskId, task, onEvent, resolve: resolve as (v: unknown) => void, reject };
      if (affinity !== undefined) job.affinity = affinity;
    });
    this.#queue.push(job);
    this.#dispatch();
    return { taskId, result, cancel: () => this.#cancel(job) };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#readyWaiters.splice(0)) waiter.reject(shuttingDown());
    for (const job of this.#queue.splice(0)) job.reject(shuttingDown());
    // Terminating a thread while DuckDB's native code runs in it (loading, or in the middle of a
    // statement) aborts the whole process: let running tasks finish first, within a bound.
    const deadline = Date.now() + LOAD_WAIT_MS;
    while (this.busy > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(
      this.#slots.map(async (s) => {
        await Promise.race([s.loaded, new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref?.())]);
        await s.worker.terminate();
      }),
    );
  }

  #cancel(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued !== -1) {
      this.#queue.splice(queued, 1);
      job.reject(new SluiceError('QUERY_CANCELLED', 'The query was cancelled.'));
      return;
    }
    const slot = this.#slots.find((s) => s.job === job);
    slot?.worker.postMessage({ type: 'cancel', taskId: job.taskId } satisfies ToWorker);
  }

  /** Whether the worker at `index` may take `job`: any may, unless the job wants one that exists. */
  #fits(job: Job, index: number): boolean {
    if (job.affinity === undefined) return true;
    const wanted = job.affinity % this.#maxSize;
    return wanted === index || wanted >= this.#slots.length;
  }

  #dispatch(): void {
    for (const [index, slot] of this.#slots.entries()) {
      if (slot.job !== null) continue;
      // The oldest task this worker may take: one waiting for a busy worker does not hold up the others.
      const at = this.#queue.findIndex((job) => this.#fits(job, index));
      if (at === -1) continue;
      const job = this.#queue.splice(at, 1)[0]!;
      slot.job = job;
      slot.worker.postMessage({ ...job.task, taskId: job.taskId } satisfies ToWorker);
    }
    if (this.#queue.length > 0 && this.#slots.length < this.#maxSize && !this.#closed) {
      this.#slots.push(this.#spawn());
      this.#dispatch();
    }
  }

  #spawn(): Slot {
    const worker = spawnWorker(this.#entry, { workerData: this.#workerData });
    let markLoaded!: () => void;
    const slot: Slot = { worker, job: null, loaded: new Promise<void>((r) => (markLoaded = r)), ready: false };
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') {
        slot.ready = true;
        markLoaded();
        for (const waiter of this.#readyWaiters.splice(0)) waiter.resolve();
      }
      else if (message.type === 'log') this.#log.error(message.line, message.cause);
      else this.#onMessage(slot, message);
    });
    worker.once('exit', () => markLoaded());
    // The exit that follows an error fails the task and replaces the worker.
    worker.on('error', (error) => this.#log.error('query worker crashed:', error));
    worker.once('exit', () => this.#onExit(slot));
    return slot;
  }

  #onMessage(slot: Slot, message: Exclude<FromWorker, { type: 'ready' | 'log' }>): void {
    const job = slot.job;
    if (job === null || job.taskId !== message.taskId) return;
    if (message.type === 'done' || message.type === 'failed') {
      slot.job = null;
      if (message.type === 'done') job.resolve(message.result);
      else job.reject(fromErrorData(message.error));
      this.#dispatch();
      return;
    }
    job.onEvent(message);
  }

  #onExit(slot: Slot): void {
    const job = slot.job;
    slot.job = null;
    job?.reject(new SluiceError('INTERNAL', 'The worker running this task stopped unexpectedly; the task was not completed.'));
    const index = this.#slots.indexOf(slot);
    if (index !== -1) this.#slots.splice(index, 1);
    if (this.#closed) return;
    const replace = () => {
      if (this.#closed) return;
      this.#slots.push(this.#spawn());
      this.#dispatch();
    };
    if (slot.ready) replace();
    else {
      this.#log.error(`A query worker stopped before it had loaded; starting another in ${RESPAWN_AFTER_LOAD_FAILURE_MS / 1000} s.`);
      setTimeout(replace, RESPAWN_AFTER_LOAD_FAILURE_MS).unref?.();
    }
  }
}
