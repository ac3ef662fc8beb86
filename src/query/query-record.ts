/**
 * The live state of one query: what the worker has reported so far, how it
 * ended, and how to cancel it. Waiting callers use `settled`; the view in
 * query-view.ts turns a record into the contract's `data`.
 */
import type { SluiceError } from '../errors.ts';
import type { ColumnOut } from '../columns/column-plan.ts';
import type { LimitOrigins } from './completeness.ts';
import type { ArtifactDecision, Completeness, QueryPreview, QueryState } from './query-types.ts';

export class QueryRecord {
  readonly id: string;
  readonly principal: string;
  readonly origins: LimitOrigins;
  readonly startedAt = Date.now();
  state: QueryState = 'RUNNING';
  preview: QueryPreview = { columns: [], rows: [], cutCells: [] };
  completeness!: Completeness;
  artifact: ArtifactDecision | null = null;
  progress = { rowsWritten: 0, bytesWritten: 0 };
  error: SluiceError | null = null;
  finishedAt: number | null = null;
  done: Promise<void> = Promise.resolve();
  readonly settled: Promise<void>;
  #settle!: () => void;
  #cancellers: (() => void)[] = [];
  #watchers: (() => void)[] = [];
  #cancelRequested = false;

  constructor(id: string, principal: string, origins: LimitOrigins) {
    this.id = id;
    this.principal = principal;
    this.origins = origins;
    this.settled = new Promise((resolve) => (this.#settle = resolve));
  }

  /** Waits until the query ends or `ms` pass, whichever comes first. */
  async settledWithin(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.settled, new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /** Called after each change of what the query reports while it runs (preview, progress). */
  onChange(fn: () => void): void {
    this.#watchers.push(fn);
  }

  changed(): void {
    for (const fn of this.#watchers) fn();
  }

  onCancel(fn: () => void): void {
    if (this.#cancelRequested) fn();
    else this.#cancellers.push(fn);
  }

  cancel(): void {
    if (this.state !== 'RUNNING' || this.#cancelRequested) return;
    this.#cancelRequested = true;
    for (const fn of this.#cancellers.splice(0)) fn();
  }

  finish(state: 'SUCCEEDED' | 'CANCELLED'): void {
    this.state = state;
    this.#end();
  }

  fail(error: SluiceError): void {
    this.state = 'FAILED';
    this.error = error;
    this.#end();
  }

  #end(): void {
    this.finishedAt = Date.now();
    this.#settle();
  }
}
