/**
 * The narrow database surface the catalog's statements run on, so SQLite
 * and PostgreSQL execute the same statements (written with `?`
 * placeholders and standard SQL both accept) and cannot drift apart. A
 * dialect supplies only what differs: how rows are locked and how a
 * transaction is run.
 */

export type Param = string | number | Date | null;

export interface CatalogTx {
  all<T>(sql: string, params?: Param[]): Promise<T[]>;
  /** The number of rows changed. */
  run(sql: string, params?: Param[]): Promise<number>;
}

export interface CatalogDb {
  /** Appended to a SELECT that must hold its rows until commit; empty where a transaction already excludes every writer. */
  readonly forUpdate: string;
  /** Runs `fn` in one transaction: all of it commits or none does (retried whole on a serialization failure). */
  transaction<T>(fn: (tx: CatalogTx) => Promise<T>): Promise<T>;
  /** A statement outside any transaction (reads that need no lock). */
  read<T>(sql: string, params?: Param[]): Promise<T[]>;
  /** The database's own upkeep, one bounded step (PostgreSQL's autovacuum needs none from us). */
  maintain(): Promise<void>;
  close(): Promise<void>;
}

export async function first<T>(tx: CatalogTx, sql: string, params: Param[] = []): Promise<T | undefined> {
  return (await tx.all<T>(sql, params))[0];
}
