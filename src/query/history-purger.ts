/**
 * Forgets query history past SLUICE_QUERY_HISTORY_DAYS in bounded rounds,
 * in the background like the artifact collector: one round a minute, or
 * back to back while a round says more is waiting. Every replica may run
 * it; a purge is a delete of rows that are past the retention whoever
 * deletes them, so replicas need not take turns.
 */
import type { QueryHistoryPort } from '../catalog/catalog.ts';

const INTERVAL_MS = 60_000;
const BATCH = 500;
const DAY_MS = 24 * 3600_000;

export class HistoryPurger {
  readonly #catalog: QueryHistoryPort;
  readonly #retentionMs: number;
  readonly #now: () => Date;
  readonly #log: (line: string) => void;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  constructor(catalog: QueryHistoryPort, retentionDays: number, log: (line: string) => void, now: () => Date = () => new Date()) {
    this.#catalog = catalog;
    this.#retentionMs = retentionDays * DAY_MS;
    this.#log = log;
    this.#now = now;
  }

  start(): void {
    this.#schedule(INTERVAL_MS);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
  }

  /** One bounded round: how many entries it forgot, and whether more are waiting. */
  async round(): Promise<{ count: number; more: boolean }> {
    return this.#catalog.purgeHistory(new Date(this.#now().getTime() - this.#retentionMs), BATCH);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#run(), ms);
    this.#timer.unref?.();
  }

  async #run(): Promise<void> {
    try {
      const { more } = await this.round();
      this.#schedule(more ? 0 : INTERVAL_MS);
    } catch (error) {
      this.#log(`Query history purge failed: ${(error as Error).message}`);
      this.#schedule(INTERVAL_MS);
    }
  }
}
