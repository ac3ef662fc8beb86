/** The catalog's shared queries: what lets every replica poll, cancel and count the queries of another. */
import type { ErrorData } from '../../errors.ts';
import type { QueryState } from '../../vocabulary.ts';
import type { RoundResult } from './artifacts-port.ts';

export interface SharedQuery {
  id: string;
  principal: string;
  /** The replica running it. */
  replica: string;
  state: QueryState;
  /** The query's `data` as the API answers it. */
  data: unknown;
  /** For a FAILED query: its error. */
  error: ErrorData | null;
}

export interface SharedQueryState extends SharedQuery {
  cancelRequested: boolean;
  /** When the owner last wrote: a RUNNING query whose owner stopped writing has lost its replica. */
  updatedAt: Date;
}

export type QueryAdmission = { admitted: true } | { admitted: false; running: number };

export interface SharedQueriesPort {
  /** Writes a query's state as its replica sees it (insert or update). */
  putQuery(query: SharedQuery): Promise<void>;
  findQuery(principal: string, id: string): Promise<SharedQueryState | undefined>;
  /** Raises the cancel flag of a running query; false when there is none of this principal. */
  requestCancel(principal: string, id: string): Promise<boolean>;
  /** Running queries of a replica whose cancel was asked for elsewhere. */
  cancelRequestsFor(replica: string): Promise<string[]>;
  purgeQueries(olderThan: Date, limit: number): Promise<RoundResult>;
  /**
   * Records `query` (RUNNING) unless its principal already has `cap` running queries written since
   * `aliveSince`, on any replica; the check and the record are one transaction under the principal's lock.
   */
  admitQuery(query: SharedQuery, cap: number, aliveSince: Date): Promise<QueryAdmission>;
}
