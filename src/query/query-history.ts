/**
 * Each principal's query history, kept in the catalog so every replica
 * answers the same: a query is recorded RUNNING when it is admitted and
 * again when it ends (state, rows, artifact, error code). Writes never hold
 * a query up and a catalog that cannot be reached never fails one; a
 * listing first waits for this replica's writes of the caller's own
 * queries, so a caller sees a query it just ran.
 */
import type { HistoryEntry, ListPosition, QueryHistoryPort } from '../catalog/catalog.ts';
import { decodeKeysetCursor, encodeKeysetCursor } from '../catalog/keyset-cursor.ts';
import { SluiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { QueryState } from '../vocabulary.ts';
import type { QueryService } from './query-service.ts';
import type { EndedQuery, StartedQuery } from './query-types.ts';

/** One item of `GET /api/queries`: fields a query does not have yet are left out. */
export interface HistoryItem {
  queryId: string;
  state: QueryState;
  datasource: string;
  sql: string;
  submittedAt: string;
  finishedAt?: string;
  rows?: number;
  artifactId?: string;
  errorCode?: string;
}

export interface HistoryListing {
  items: HistoryItem[];
  nextCursor: string | null;
}

export interface HistoryQuery {
  limit: number;
  cursor?: string | undefined;
  state?: QueryState | undefined;
  datasource?: string | undefined;
}

export class QueryHistory {
  readonly #catalog: QueryHistoryPort;
  readonly #log: Logger;
  /** Writes of this replica not yet done, per principal. */
  readonly #pending = new Map<string, Set<Promise<void>>>();

  constructor(catalog: QueryHistoryPort, log: Logger) {
    this.#catalog = catalog;
    this.#log = log;
  }

  /** Records every query `queries` admits, and how it ends. */
  watch(queries: QueryService): void {
    queries.onStarted((started) => this.#put(runningEntry(started)));
    queries.onEnded((ended) => this.#put(endedEntry(ended)));
  }

  async list(principal: string, query: HistoryQuery): Promise<HistoryListing> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    await Promise.all(this.#pending.get(principal) ?? []);
    const page = await this.#catalog.listHistory(principal, { limit: query.limit, after, state: query.state, datasource: query.datasource });
    return { items: page.entries.map(itemOf), nextCursor: page.next === null ? null : encodeKeysetCursor(page.next) };
  }

  /** Waits for every write this replica has begun (at stop, before the catalog closes). */
  async flush(): Promise<void> {
    await Promise.all([...this.#pending.values()].flatMap((writes) => [...writes]));
  }

  #put(entry: HistoryEntry): void {
    const pending = this.#pending.get(entry.principal) ?? new Set();
    this.#pending.set(entry.principal, pending);
    const write = this.#catalog.putHistory(entry).catch((error: unknown) => {
      // The query goes on; its history entry stays as last written (or missing) until the catalog answers.
      this.#log.error(`query ${entry.queryId}: its history entry could not be written:`, error);
    });
    pending.add(write);
    void write.then(() => {
      pending.delete(write);
      if (pending.size === 0 && this.#pending.get(entry.principal) === pending) this.#pending.delete(entry.principal);
    });
  }
}

function runningEntry(started: StartedQuery): HistoryEntry {
  return { ...started, state: 'RUNNING', finishedAt: null, rows: null, artifactId: null, errorCode: null };
}

function endedEntry(ended: EndedQuery): HistoryEntry {
  const { queryId, principal, datasource, sql, submittedAt, state, finishedAt, rows, artifactId, errorCode } = ended;
  return { queryId, principal, datasource, sql, submittedAt, state, finishedAt, rows, artifactId, errorCode };
}

function itemOf(entry: HistoryEntry): HistoryItem {
  return {
    queryId: entry.queryId,
    state: entry.state,
    datasource: entry.datasource,
    sql: entry.sql,
    submittedAt: entry.submittedAt,
    ...(entry.finishedAt === null ? {} : { finishedAt: entry.finishedAt }),
    ...(entry.rows === null ? {} : { rows: entry.rows }),
    ...(entry.artifactId === null ? {} : { artifactId: entry.artifactId }),
    ...(entry.errorCode === null ? {} : { errorCode: entry.errorCode }),
  };
}

function decodeCursor(cursor: string): ListPosition {
  return decodeKeysetCursor(cursor, () => new SluiceError('INVALID_CURSOR', 'This history cursor is not one this server handed out; list again without it.'));
}
