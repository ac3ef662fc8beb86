/**
 * Queries shared by replicas through the catalog. The replica that accepts
 * a query publishes its state (when it starts, at most twice a second while
 * it runs, and when it ends) and looks, twice a second, for cancels asked
 * for elsewhere; any other replica answers a poll from the published state
 * and asks for a cancel by raising its flag. A RUNNING query whose replica
 * has not written for a while has lost its replica (it was killed): it is
 * answered as FAILED, never left RUNNING forever.
 */
import { fromErrorData, SluiceError, type ErrorData } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { QueryAdmission, SharedQueriesPort, SharedQuery, SharedQueryState } from '../catalog/ports/shared-queries-port.ts';
import type { QueryRecord } from './query-record.ts';
import type { QueryData } from './query-types.ts';
import { queryData, querySummary, type QueryAnswer } from './query-view.ts';

const PUBLISH_EVERY_MS = 500;
const CANCEL_POLL_MS = 500;
const REMOTE_POLL_MS = 250;
/** A running query is written at least this often, progress or not, so a silent one is known to be alive. */
const HEARTBEAT_MS = 10_000;
/** Several heartbeats missed: the replica running the query is gone (and its queries hold no slot of the cap). */
const OWNER_LOST_MS = 6 * HEARTBEAT_MS;

export class SharedQueries {
  readonly #catalog: SharedQueriesPort;
  readonly #replica: string;
  readonly #log: Logger;
  readonly #local: (id: string) => QueryRecord | undefined;
  #timer: ReturnType<typeof setInterval> | null = null;
  #admitFallback = false;

  constructor(catalog: SharedQueriesPort, replica: string, log: Logger, local: (id: string) => QueryRecord | undefined) {
    this.#catalog = catalog;
    this.#replica = replica;
    this.#log = log;
    this.#local = local;
  }

  /** Looks for cancels asked for on other replicas, until stop(). */
  start(): void {
    this.#timer = setInterval(() => void this.#applyCancels(), CANCEL_POLL_MS);
    this.#timer.unref?.();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
  }

  /** Publishes a new query before its id is handed out, then as it runs and when it ends. */
  async publish(record: QueryRecord): Promise<void> {
    // One write at a time, each of the state as it is when it runs: the last write is always of the final state.
    let queue = this.#write(record);
    const write = () => (queue = queue.then(() => this.#write(record)));
    await queue;
    let last = Date.now();
    let pending: ReturnType<typeof setTimeout> | null = null;
    record.onChange(() => {
      if (pending !== null || record.state !== 'RUNNING') return;
      pending = setTimeout(() => {
        pending = null;
        last = Date.now();
        if (record.state === 'RUNNING') void write();
      }, Math.max(0, last + PUBLISH_EVERY_MS - Date.now()));
      pending.unref?.();
    });
    const heartbeat = setInterval(() => void write(), HEARTBEAT_MS);
    heartbeat.unref?.();
    void record.settled.then(() => {
      clearInterval(heartbeat);
      if (pending !== null) clearTimeout(pending);
      return write();
    });
  }

  /** The answer for a query another replica runs, waiting up to `waitMs` for it to end. */
  async poll(principal: string, id: string, waitMs: number): Promise<QueryAnswer | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const shared = await this.#catalog.findQuery(principal, id);
      if (shared === undefined) return undefined;
      const answer = answerOfShared(shared);
      if (answer.status === 200 || Date.now() >= deadline) return answer;
      await new Promise((r) => setTimeout(r, Math.min(REMOTE_POLL_MS, Math.max(0, deadline - Date.now()))));
    }
  }

  /** Asks the replica running it to cancel, and waits up to `waitMs` for the end. */
  async cancel(principal: string, id: string, waitMs: number): Promise<QueryAnswer | undefined> {
    const shared = await this.#catalog.findQuery(principal, id);
    if (shared === undefined) return undefined;
    if (shared.state === 'RUNNING') await this.#catalog.requestCancel(principal, id);
    return this.poll(principal, id, waitMs);
  }

  /**
   * Records a new query RUNNING if its principal has fewer than `cap` queries running on all replicas
   * together; null when the catalog cannot be asked (said once in the log, until it answers again).
   */
  async admit(record: QueryRecord, cap: number): Promise<QueryAdmission | null> {
    try {
      const admission = await this.#catalog.admitQuery(this.#shared(record), cap, new Date(Date.now() - OWNER_LOST_MS));
      if (this.#admitFallback) this.#log.info('The concurrent-query cap counts across replicas again: the catalog answers.');
      this.#admitFallback = false;
      return admission;
    } catch (e) {
      if (!this.#admitFallback) this.#log.error('The concurrent-query cap counts in this replica only until the catalog answers again:', e);
      this.#admitFallback = true;
      return null;
    }
  }

  #shared(record: QueryRecord): SharedQuery {
    const data = queryData(record);
    const error: ErrorData | null = record.error === null ? null : { code: record.error.code, message: record.error.message, ...(record.error.details ? { details: record.error.details } : {}), ...(record.error.statusOverride ? { status: record.error.statusOverride } : {}) };
    return { id: record.id, principal: record.principal, replica: this.#replica, state: record.state, data, error };
  }

  async #write(record: QueryRecord): Promise<void> {
    try {
      await this.#catalog.putQuery(this.#shared(record));
    } catch (e) {
      // The query goes on; other replicas see its last published state until the catalog answers again.
      this.#log.error(`query ${record.id}: its state could not be shared through the catalog:`, e);
    }
  }

  async #applyCancels(): Promise<void> {
    try {
      for (const id of await this.#catalog.cancelRequestsFor(this.#replica)) this.#local(id)?.cancel();
    } catch {
      // The catalog is unreachable: readiness says so; cancels wait for it.
    }
  }
}

function answerOfShared(shared: SharedQueryState): QueryAnswer {
  const data = shared.data as QueryData;
  if (shared.state === 'RUNNING' && Date.now() - shared.updatedAt.getTime() > OWNER_LOST_MS) {
    throw new SluiceError('INTERNAL', 'The replica running this query stopped before it ended; run the query again.', { queryId: shared.id, state: 'FAILED', reason: 'REPLICA_LOST' });
  }
  if (shared.state === 'FAILED' && shared.error !== null) throw fromErrorData(shared.error).withDetails({ queryId: shared.id, state: 'FAILED' });
  return { data, summary: querySummary(data), status: shared.state === 'RUNNING' ? 202 : 200 };
}
