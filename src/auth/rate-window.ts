/**
 * The decision of the shared rate limit: a sliding window estimated from
 * two fixed one-minute windows (the previous one weighted by how much of it
 * the sliding minute still covers). Fixed windows alone would let a
 * principal send twice the limit across a boundary; two counters per
 * principal are all replicas need to share for this.
 */
export const WINDOW_MS = 60_000;

export function windowStart(t: number): number {
  return t - (t % WINDOW_MS);
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** `elapsed` is the part (0 to 1) of the current window that has passed; `prev` and `cur` count requests already accepted. */
export function decide(prev: number, cur: number, elapsed: number, limit: number): RateDecision {
  if (prev * (1 - elapsed) + cur + 1 <= limit) return { allowed: true };
  let waitWindows: number;
  if (cur + 1 <= limit && prev > 0) {
    // Later in this window the previous one weighs less: wait until it weighs little enough.
    waitWindows = 1 - (limit - 1 - cur) / prev - elapsed;
  } else {
    // Only the next window has room, once this window's count weighs little enough there.
    waitWindows = 1 - elapsed + (cur <= limit - 1 ? 0 : 1 - (limit - 1) / cur);
  }
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((waitWindows * WINDOW_MS) / 1000)) };
}
