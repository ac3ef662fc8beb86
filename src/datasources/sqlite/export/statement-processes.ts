/**
 * The statement processes of one query worker: an idle one is reused for
 * the next statement (starting one costs tens of milliseconds on the build,
 * about a second under tsx), a few are kept, and each is ended after a
 * minute idle so an idle worker holds no process.
 */
import { StatementProcess } from './statement-process.ts';

const IDLE_CLOSE_MS = 60_000;
const KEEP_IDLE = 2;

export class StatementProcesses {
  readonly #idle: { process: StatementProcess; timer: ReturnType<typeof setTimeout> }[] = [];

  acquire(): StatementProcess {
    for (let idle = this.#idle.pop(); idle !== undefined; idle = this.#idle.pop()) {
      clearTimeout(idle.timer);
      if (idle.process.alive) return idle.process;
    }
    return new StatementProcess();
  }

  /** A process whose statement ran to its end (or was stopped by itself) serves the next; any other is ended. */
  release(process: StatementProcess, clean: boolean): void {
    if (!clean || !process.alive || this.#idle.length >= KEEP_IDLE) {
      process.kill();
      return;
    }
    const timer = setTimeout(() => {
      const at = this.#idle.findIndex((idle) => idle.process === process);
      if (at >= 0) this.#idle.splice(at, 1);
      process.kill();
    }, IDLE_CLOSE_MS);
    timer.unref?.();
    this.#idle.push({ process, timer });
  }

  close(): void {
    for (const idle of this.#idle.splice(0)) {
      clearTimeout(idle.timer);
      idle.process.kill();
    }
  }
}
