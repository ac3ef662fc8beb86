/**
 * Who stopped an export and how its stream ends. A stop comes from outside
 * (a cancel, or a cap the caller enforces), from the duration deadline, or
 * from the loop itself (a cap reached, a failure of its own). Whatever the
 * reason, the rest of the stream is drained rather than dropped, so the
 * connection stays in step with the server and the transaction can end
 * cleanly; the statement is cancelled on the server at most once.
 */
import type { Cap } from '../export-types.ts';

/** What a stop cancels: the statement behind the export's rows (row-source.ts, chunk-row-source.ts). */
export interface Cancellable {
  cancel(): void;
}

export type StopReason = 'cancel' | Cap;

/**
 * How a stream that must end is ended: `drain` reads what is left without
 * asking the server to stop (after a row cap the statement has LIMIT cap+1,
 * so at most one row is left), `cancel` also asks it to stop.
 */
export type StreamEnd = 'drain' | 'cancel';

export class StopControl {
  readonly #source: Cancellable;
  #reason: StopReason | null = null;
  #draining = false;
  #cancelledByUs = false;
  /** The stream ended with an error after we had asked the server to stop. */
  #interrupted = false;
  #deadline: ReturnType<typeof setTimeout> | undefined;

  constructor(source: Cancellable) {
    this.#source = source;
  }

  /** Why the export was stopped from outside or by its deadline; null when it was not. */
  get reason(): StopReason | null {
    return this.#reason;
  }

  /** Chunks still arriving are read and dropped. */
  get draining(): boolean {
    return this.#draining;
  }

  /**
   * The deadline's cancel reached a statement still running. One that ended
   * by itself before the cancel reached it was not cut: every row arrived.
   */
  get cutByDeadline(): boolean {
    return this.#reason === 'maxDuration' && this.#interrupted;
  }

  /** The stopper handed out through ExportHooks.onStopper: the first stop wins, and none counts once the stream is ending. */
  stop(reason: StopReason): void {
    if (this.#reason !== null || this.#draining) return;
    this.#reason = reason;
    // Rows still arriving were produced before the server saw the cancel: they belong to the prefix.
    if (reason === 'maxDuration') this.#cancelStatement();
    else this.end('cancel');
  }

  end(how: StreamEnd): void {
    this.#draining = true;
    if (how === 'cancel') this.#cancelStatement();
  }

  startDeadline(ms: number): void {
    this.#deadline = setTimeout(() => this.stop('maxDuration'), ms);
  }

  clearDeadline(): void {
    clearTimeout(this.#deadline);
  }

  /**
   * Whether an error that ended the stream is the cancel we asked for (how
   * a cancelled statement's stream ends), rather than a failure to report.
   */
  endedByOurCancel(): boolean {
    if (!this.#cancelledByUs) return false;
    this.#interrupted = true;
    return true;
  }

  #cancelStatement(): void {
    if (this.#cancelledByUs) return;
    this.#cancelledByUs = true;
    this.#source.cancel();
  }
}

/**
 * Reads an export's source to its end, handing each item that counts to
 * `take` until the stop control drains. A failure of `take` (ours) stops
 * the statement and the rest is drained; the source's own failure counts
 * unless it is the cancel we asked for. Returns what went wrong, or null.
 */
export async function readToEnd<T>(source: AsyncIterable<T>, stops: StopControl, empty: (item: T) => boolean, take: (item: T) => Promise<void>): Promise<unknown> {
  let failure: unknown = null;
  try {
    for await (const item of source) {
      if (stops.draining || empty(item)) continue;
      try {
        await take(item);
      } catch (error) {
        // Our own failure: stop the statement, keep draining, report it after.
        failure = error;
        stops.end('cancel');
      }
    }
  } catch (error) {
    if (!stops.endedByOurCancel()) failure = error;
  } finally {
    stops.clearDeadline();
  }
  return failure;
}
