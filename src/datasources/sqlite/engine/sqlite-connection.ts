/**
 * The one interface the SQLite driver speaks, whichever library the runtime
 * has: bun:sqlite on Bun, node:sqlite on Node from 22.13 and on Deno,
 * better-sqlite3 on Node 20 (12.x; 13 crashes there). Each library is
 * loaded with a dynamic import of its own module only where it runs, so a
 * runtime never loads another's module (Bun refuses better-sqlite3's addon,
 * Node 20 has no node:sqlite, Deno loads no Node-API addon).
 *
 * A connection is always opened read-only: the library's read-only open
 * flag (which never creates a file) and `PRAGMA query_only`, so even a
 * statement that slipped past the parser cannot write.
 */

/** One result column: its name and its declared type (null for an expression or an untyped column). */
export interface ColumnInfo {
  name: string;
  declaredType: string | null;
}

/** A value as the libraries give it with 64-bit integers on: INTEGER bigint, REAL number, TEXT string, BLOB bytes. */
export type SqliteValue = bigint | number | string | Uint8Array | null;

export interface SqliteQuery {
  columns(): ColumnInfo[];
  /** Rows one at a time, in column order; stepping stops when the caller stops iterating. */
  rows(params: SqliteValue[]): Iterator<SqliteValue[]>;
}

/**
 * A SQL function of a statement's row: called by SQLite inside its own step
 * with the row's values (64-bit integers as bigint), once per row; returns
 * whether the statement should yield now (its iterator steps once per yield).
 */
export type RowSink = (values: ArrayLike<SqliteValue>) => boolean;

export interface SqliteConnection {
  /** The library underneath, for logs and tests. */
  readonly library: SqliteLibrary;
  prepare(sql: string): SqliteQuery;
  /**
   * Registers `sink` as the SQL function `name` of `width` arguments, for
   * top-level SQL only (never a view's or a trigger's); false where the
   * library has no SQL functions of JavaScript (bun:sqlite).
   */
  rowFunction(name: string, width: number, sink: RowSink): boolean;
  /** Runs `sql` and returns its rows as objects keyed by column name (catalog reads, where names are unique). */
  all(sql: string, params?: SqliteValue[]): Record<string, SqliteValue>[];
  exec(sql: string): void;
  close(): void;
}

export type SqliteLibrary = 'better-sqlite3' | 'node:sqlite' | 'bun:sqlite';

export interface OpenOptions {
  /** Milliseconds SQLite waits on a lock held by a writer before answering SQLITE_BUSY. */
  busyTimeoutMs: number;
}
