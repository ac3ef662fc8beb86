/**
 * The catalog's query history: one small row per query (never its preview or
 * result), written by the replica that ran it and read by any, each
 * principal's own, kept for a retention and purged in bounded rounds.
 */
import type { QueryState } from '../../vocabulary.ts';
import type { ListPosition, RoundResult } from './artifacts-port.ts';

export interface HistoryEntry {
  queryId: string;
  principal: string;
  datasource: string;
  sql: string;
  state: QueryState;
  submittedAt: string;
  finishedAt: string | null;
  rows: number | null;
  artifactId: string | null;
  errorCode: string | null;
}

export interface HistoryRequest {
  limit: number;
  /** The last entry of the previous page: its submittedAt (as `createdAt`) and queryId (as `id`). */
  after?: ListPosition | undefined;
  state?: QueryState | undefined;
  datasource?: string | undefined;
}

export interface HistoryPage {
  entries: HistoryEntry[];
  next: ListPosition | null;
}

export interface QueryHistoryPort {
  /**
   * Records an entry, or updates the one of that query. An ended entry is final: a RUNNING write that
   * arrives after it (the two are not ordered) changes nothing.
   */
  putHistory(entry: HistoryEntry): Promise<void>;
  /** A principal's entries, newest first (submittedAt, then queryId), one page at a time. */
  listHistory(principal: string, request: HistoryRequest): Promise<HistoryPage>;
  /**
   * Ends at most `limit` entries still RUNNING that were submitted before `submittedBefore`, as FAILED with
   * `errorCode` INTERNAL at `now`: a query that has run that long lost its replica (it was killed) and
   * would otherwise stay RUNNING until it is purged.
   */
  abandonHistory(submittedBefore: Date, now: Date, limit: number): Promise<RoundResult>;
  /** Forgets at most `limit` entries submitted before `olderThan`. */
  purgeHistory(olderThan: Date, limit: number): Promise<RoundResult>;
}
