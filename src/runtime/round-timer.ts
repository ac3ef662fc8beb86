/**
 * Runs one bounded round of background upkeep at a time: again at once while
 * a round says more is waiting, after the interval otherwise, and after the
 * interval too when a round fails (told to `failed`, never thrown). The
 * timer never holds the process open, and nothing runs after stop().
 */
export class RoundTimer {
  readonly #round: () => Promise<{ more: boolean }>;
  readonly #intervalMs: number;
  readonly #failed: (error: Error) => void;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  constructor(round: () => Promise<{ more: boolean }>, intervalMs: number, failed: (error: Error) => void) {
    this.#round = round;
    this.#intervalMs = intervalMs;
    this.#failed = failed;
  }

  start(): void {
    this.#schedule(this.#intervalMs);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#run(), ms);
    this.#timer.unref?.();
  }

  async #run(): Promise<void> {
    try {
      const { more } = await this.#round();
      this.#schedule(more ? 0 : this.#intervalMs);
    } catch (error) {
      this.#failed(error as Error);
      this.#schedule(this.#intervalMs);
    }
  }
}
