/**
 * The answers a query worker sends for its tasks: every message of a task
 * until its last one (done or failed), and nothing after it (a progress
 * report or a second settle that comes late is dropped). It remembers only
 * the tasks in flight, so a worker that has served millions of pages holds
 * no more than one that has just started.
 */
import type { FromWorker } from './protocol.ts';

type TaskMessage = Extract<FromWorker, { taskId: number }>;

export class TaskAnswers {
  readonly #send: (message: FromWorker) => void;
  /** Tasks begun and not answered for the last time yet. */
  readonly #open = new Set<number>();

  constructor(send: (message: FromWorker) => void) {
    this.#send = send;
  }

  /** How many tasks have begun and not been answered for the last time. */
  get open(): number {
    return this.#open.size;
  }

  begin(taskId: number): void {
    this.#open.add(taskId);
  }

  answer(message: TaskMessage): void {
    if (!this.#open.has(message.taskId)) return;
    if (message.type === 'done' || message.type === 'failed') this.#open.delete(message.taskId);
    this.#send(message);
  }
}
