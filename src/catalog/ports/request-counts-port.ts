/** The catalog's request counts: rate limits held across every replica. */
import type { RoundResult } from './artifacts-port.ts';

export interface RequestCount {
  /** Which limiter counted (one per route family, as each keeps its own budget). */
  scope: string;
  principal: string;
  windowStart: Date;
  requests: number;
}

export interface RequestCountsPort {
  /** Adds request counts, then answers every count of `principals` in windows from `since` on. */
  countRequests(added: RequestCount[], principals: string[], since: Date): Promise<RequestCount[]>;
  purgeRequestCounts(olderThan: Date, limit: number): Promise<RoundResult>;
}
