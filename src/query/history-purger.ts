/**
 * Keeps the query history in bounds, in the background like the artifact
 * collector: one bounded round a minute, or back to back while a round says
 * more is waiting. A round ends entries left RUNNING far longer than any
 * query may run (their replica was killed before it could write the end) as
 * FAILED, then forgets entries past SLUICE_QUERY_HISTORY_DAYS. Every replica
 * may run it: both are changes of rows that are due whoever changes them,
 * so replicas need not take turns.
 */
import type { QueryHistoryPort } from '../catalog/catalog.ts';
import { RoundTimer } from '../runtime/round-timer.ts';

const INTERVAL_MS = 60_000;
const BATCH = 500;
const DAY_MS = 24 * 3600_000;
/** Beyond SLUICE_MAX_DURATION_MS, room for a query's wait for its datasource: an entry RUNNING past both has lost its replica. */
const ABANDON_MARGIN_MS = 3600_000;

export interface HistoryBounds {
  retentionDays: number;
  /** SLUICE_MAX_DURATION_MS: no query runs longer. */
  maxDurationMs: number;
}

export class HistoryPurger {
  readonly #catalog: QueryHistoryPort;
  readonly #retentionMs: number;
  readonly #abandonAfterMs: number;
  readonly #now: () => Date;
  readonly #log: (line: string) => void;
  readonly #rounds: RoundTimer;

  constructor(catalog: QueryHistoryPort, bounds: HistoryBounds, log: (line: string) => void, now: () => Date = () => new Date()) {
    this.#catalog = catalog;
    this.#retentionMs = bounds.retentionDays * DAY_MS;
    this.#abandonAfterMs = bounds.maxDurationMs + ABANDON_MARGIN_MS;
    this.#log = log;
    this.#now = now;
    this.#rounds = new RoundTimer(() => this.round(), INTERVAL_MS, (error) => this.#log(`Query history purge failed: ${error.message}`));
  }

  start(): void {
    this.#rounds.start();
  }

  stop(): void {
    this.#rounds.stop();
  }

  /** One bounded round: how many entries it ended as abandoned and forgot, and whether more are waiting. */
  async round(): Promise<{ abandoned: number; purged: number; more: boolean }> {
    const now = this.#now();
    const abandoned = await this.#catalog.abandonHistory(new Date(now.getTime() - this.#abandonAfterMs), now, BATCH);
    const purged = await this.#catalog.purgeHistory(new Date(now.getTime() - this.#retentionMs), BATCH);
    return { abandoned: abandoned.count, purged: purged.count, more: abandoned.more || purged.more };
  }
}
