/**
 * Runs the store's bounded collection rounds in the background once the
 * server is ready: one round a minute, or back to back while a round says
 * more is waiting. Never at start-up, never on a request's path.
 */
import type { ArtifactStore } from './types.ts';

const INTERVAL_MS = 60_000;
/** What one round may release at most: a round on request (POST /api/admin/maintenance) takes the same bound. */
export const COLLECTION_BATCH = { maxBlobs: 500, maxBytes: 2 * 1024 * 1024 * 1024 };

export class Collector {
  readonly #store: ArtifactStore;
  readonly #log: (line: string) => void;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;
  readonly #rounds = { ran: 0, skipped: 0, failed: 0 };

  constructor(store: ArtifactStore, log: (line: string) => void) {
    this.#store = store;
    this.#log = log;
  }

  /** Rounds since start: ran, skipped (another replica holds the collection lease), failed. */
  get rounds(): Readonly<{ ran: number; skipped: number; failed: number }> {
    return { ...this.#rounds };
  }

  start(): void {
    this.#schedule(INTERVAL_MS);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#round(), ms);
    this.#timer.unref?.();
  }

  async #round(): Promise<void> {
    try {
      const report = await this.#store.collect(COLLECTION_BATCH);
      this.#rounds[report.ran ? 'ran' : 'skipped']++;
      this.#schedule(report.more ? 0 : INTERVAL_MS);
    } catch (error) {
      this.#rounds.failed++;
      this.#log(`Artifact collection failed: ${(error as Error).message}`);
      this.#schedule(INTERVAL_MS);
    }
  }
}
