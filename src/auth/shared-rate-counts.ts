/**
 * Request counts shared by replicas through the catalog, for the
 * per-principal rate limit. Each replica counts locally and, every
 * SYNC_EVERY_MS, adds what it counted to the catalog's per-minute rows and
 * reads back the totals of the principals it serves, in one transaction; a
 * request is decided from those totals plus the replica's own unsent count,
 * so it costs no round trip as a rule.
 *
 * How far replicas overshoot together: a replica holds at most `share`
 * accepted requests of a principal that the catalog has not seen (the next
 * one waits for a round), so what any replica cannot know of is at most the
 * others' unsent requests, and N replicas accept at most
 * limit + (N - 1) x share in the sliding minute, share being 5% of the
 * limit (at least 1): 5% per extra replica. That holds while the catalog
 * answers within SYNC_WAIT_MS; below 40 requests a minute the share is one,
 * and every request of a principal after its first waits for a round.
 *
 * A catalog that cannot be reached must not stop the API: requests are
 * then decided from what this replica knows (the last totals it read plus
 * its own count), which is said once in the log, and the counts are sent
 * when the catalog answers again. No request waits longer than
 * SYNC_WAIT_MS for a round, and none waits at all while rounds fail.
 */
import type { RequestCount, RequestCountsPort } from '../catalog/ports/request-counts-port.ts';
import type { Logger } from '../logger.ts';
import { decide, WINDOW_MS, windowStart, type RateDecision } from './rate-window.ts';

const SYNC_EVERY_MS = 250;
const SYNC_WAIT_MS = 1_000;
const PURGE_LIMIT = 1_000;

interface Tally {
  scope: string;
  principal: string;
  /** Totals per window start as the catalog last answered them, this replica's sent counts included. */
  known: Map<number, number>;
  /** Counted here and being added to the catalog now. */
  sending: Map<number, number>;
  /** Counted here, not sent yet. */
  unsent: Map<number, number>;
  /** Whether the catalog has answered for this principal since it was first seen here. */
  synced: boolean;
  lastSeen: number;
}

function sumOf(tally: Tally, window: number): number {
  return (tally.known.get(window) ?? 0) + (tally.sending.get(window) ?? 0) + (tally.unsent.get(window) ?? 0);
}

function unsentOf(tally: Tally): number {
  let n = 0;
  for (const v of tally.unsent.values()) n += v;
  return n;
}

export class SharedRateCounts {
  readonly #catalog: RequestCountsPort;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #tallies = new Map<string, Tally>();
  #round: Promise<void> | null = null;
  #healthy = true;
  #purgedWindow = 0;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(catalog: RequestCountsPort, log: Logger, now: () => number = Date.now) {
    this.#catalog = catalog;
    this.#log = log;
    this.#now = now;
  }

  start(): void {
    this.#timer = setInterval(() => void this.#sync(), SYNC_EVERY_MS);
    this.#timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    // What was counted is sent before the replica goes, so the others still see it.
    await this.#sync().catch(() => undefined);
  }

  /** Counts one request of `principal` against `perMinute`, unless it is refused. */
  async take(scope: string, principal: string, perMinute: number): Promise<RateDecision> {
    const key = `${scope}\u0000${principal}`;
    let tally = this.#tallies.get(key);
    if (tally === undefined) {
      tally = { scope, principal, known: new Map(), sending: new Map(), unsent: new Map(), synced: false, lastSeen: 0 };
      this.#tallies.set(key, tally);
    }
    tally.lastSeen = this.#now();
    const share = Math.max(1, Math.floor(perMinute / 20));
    // A principal new here, or one with a full share unsent, waits for a round (bounded) unless rounds are failing.
    if (this.#healthy && (!tally.synced || unsentOf(tally) >= share)) await this.#syncWithin(SYNC_WAIT_MS);
    const t = this.#now();
    const current = windowStart(t);
    const decision = decide(sumOf(tally, current - WINDOW_MS), sumOf(tally, current), (t - current) / WINDOW_MS, perMinute);
    if (decision.allowed) tally.unsent.set(current, (tally.unsent.get(current) ?? 0) + 1);
    return decision;
  }

  async #syncWithin(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    // A round already under way was sent before this request came: its answer is not fresh enough alone.
    const under = this.#round;
    await Promise.race([under === null ? this.#sync() : under.then(() => this.#sync()), late]);
    clearTimeout(timer);
  }

  /** One round at a time; a caller arriving during one gets that one. */
  #sync(): Promise<void> {
    this.#round ??= this.#roundTrip().finally(() => (this.#round = null));
    return this.#round;
  }

  async #roundTrip(): Promise<void> {
    const t = this.#now();
    const current = windowStart(t);
    const previous = current - WINDOW_MS;
    const added: RequestCount[] = [];
    const watched: Tally[] = [];
    for (const [key, tally] of this.#tallies) {
      // Counts of windows that no longer weigh are dropped unsent: no decision reads them any more.
      for (const window of tally.unsent.keys()) if (window < previous) tally.unsent.delete(window);
      for (const [window, requests] of tally.unsent) added.push({ scope: tally.scope, principal: tally.principal, windowStart: new Date(window), requests });
      tally.sending = tally.unsent;
      tally.unsent = new Map();
      if (t - tally.lastSeen > 2 * WINDOW_MS && tally.sending.size === 0) this.#tallies.delete(key);
      else watched.push(tally);
    }
    if (watched.length === 0) return;
    try {
      const totals = await this.#catalog.countRequests(added, watched.map((w) => w.principal), new Date(previous));
      const byKey = new Map<string, Map<number, number>>();
      for (const total of totals) {
        const key = `${total.scope}\u0000${total.principal}`;
        const windows = byKey.get(key) ?? new Map<number, number>();
        windows.set(total.windowStart.getTime(), total.requests);
        byKey.set(key, windows);
      }
      for (const tally of watched) {
        tally.known = byKey.get(`${tally.scope}\u0000${tally.principal}`) ?? new Map();
        tally.sending = new Map();
        tally.synced = true;
      }
      if (!this.#healthy) this.#log.info('Rate limits count across replicas again: the catalog answers.');
      this.#healthy = true;
    } catch (error) {
      for (const tally of watched) {
        // Not sent after all: counted again with what comes next, and meanwhile part of every local decision.
        for (const [window, requests] of tally.sending) tally.unsent.set(window, (tally.unsent.get(window) ?? 0) + requests);
        tally.sending = new Map();
      }
      if (this.#healthy) this.#log.error('Rate limits count in this replica only until the catalog answers again:', error);
      this.#healthy = false;
      return;
    }
    if (this.#purgedWindow !== current) {
      this.#purgedWindow = current;
      await this.#catalog.purgeRequestCounts(new Date(previous), PURGE_LIMIT).catch(() => undefined);
    }
  }
}
