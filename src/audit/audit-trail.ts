/**
 * The audit trail's writer. Requests hand it entries and go on: an entry
 * waits in a bounded in-process queue, and batches leave it for the
 * catalog off the request path (every FLUSH_MS, or at once when a batch is
 * full), one multi-row insert each. Writing never blocks or fails a
 * request. While the catalog cannot be reached the entries wait; when the
 * queue is full the oldest are dropped, and the log says how many in one
 * line (at most one a minute), never one line per entry. A batch whose
 * answer was lost is sent again as it was: entries carry their own ids, so
 * the catalog keeps each once.
 */
import { randomUUID } from 'node:crypto';
import type { AuditEntry, AuditPort } from '../catalog/ports/audit-port.ts';
import type { Logger } from '../logger.ts';

/** An entry as a request describes it; the trail gives it its id. */
export type AuditRecord = Omit<AuditEntry, 'id'>;

export interface AuditTrailOptions {
  /** Entries held while the catalog cannot take them; past this the oldest go. */
  maxQueued?: number;
  batch?: number;
  flushMs?: number;
}

const MAX_QUEUED = 10_000;
const BATCH = 500;
const FLUSH_MS = 500;
const DROP_LOG_MS = 60_000;

/**
 * Unique across replicas, and in the order entries were taken: the catalog's key index then grows at its
 * end instead of at random places (measured: random ids made each batch slower as the trail grew).
 */
function entryId(): string {
  return `${Date.now().toString(36).padStart(9, '0')}-${randomUUID()}`;
}

export class AuditTrail {
  readonly #port: AuditPort;
  readonly #log: Logger;
  readonly #maxQueued: number;
  readonly #batch: number;
  readonly #flushMs: number;
  #queue: AuditEntry[] = [];
  #flushing: Promise<void> | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #healthy = true;
  /** Dropped since the last line that said so. */
  #dropped = 0;
  #droppedSaidAt = -Infinity;

  constructor(port: AuditPort, log: Logger, options: AuditTrailOptions = {}) {
    this.#port = port;
    this.#log = log;
    this.#maxQueued = options.maxQueued ?? MAX_QUEUED;
    this.#batch = options.batch ?? BATCH;
    this.#flushMs = options.flushMs ?? FLUSH_MS;
  }

  /** Entries waiting to be written. */
  get queued(): number {
    return this.#queue.length;
  }

  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.flush(), this.#flushMs);
    this.#timer.unref?.();
  }

  /** Takes an entry; never throws, never waits. */
  record(record: AuditRecord): void {
    this.#queue.push({ id: entryId(), ...record });
    this.#trim();
    if (this.#timer !== null && this.#queue.length >= this.#batch && this.#flushing === null && this.#healthy) void this.flush();
  }

  /** Writes what waits, a batch at a time, until the queue is empty or the catalog refuses; one flush at a time. */
  flush(): Promise<void> {
    this.#flushing ??= this.#drain().finally(() => (this.#flushing = null));
    return this.#flushing;
  }

  /** Stops the timer and writes what waits (what the catalog cannot take now is lost, and said to be). */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#flushing;
    await this.flush();
    this.#sayDropped(true);
    if (this.#queue.length > 0) this.#log.error(`The audit trail could not be written before stopping: ${this.#queue.length} entries are lost.`);
  }

  async #drain(): Promise<void> {
    this.#sayDropped(false);
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#batch);
      try {
        await this.#port.appendAudit(batch);
      } catch (error) {
        // Back in front, oldest first, and kept within the bound with whatever came meanwhile.
        this.#queue = batch.concat(this.#queue);
        this.#trim();
        if (this.#healthy) this.#log.error(`The audit trail cannot be written now; entries wait in memory (at most ${this.#maxQueued}).`, error);
        this.#healthy = false;
        return;
      }
      if (!this.#healthy) this.#log.info('The audit trail is written again.');
      this.#healthy = true;
    }
  }

  #trim(): void {
    const over = this.#queue.length - this.#maxQueued;
    if (over <= 0) return;
    this.#queue.splice(0, over);
    this.#dropped += over;
  }

  #sayDropped(now: boolean): void {
    if (this.#dropped === 0) return;
    if (!now && performance.now() - this.#droppedSaidAt < DROP_LOG_MS) return;
    this.#log.error(`The audit queue was full (${this.#maxQueued} entries waiting for the catalog): dropped the ${this.#dropped} oldest entries.`);
    this.#dropped = 0;
    this.#droppedSaidAt = performance.now();
  }
}
