/**
 * The embedded catalog's database handle. better-sqlite3 is synchronous,
 * which is what makes catalog changes and quota counts one transaction with
 * no interleaving; its statements take microseconds, so the event loop never
 * waits on it for long. This is the one file that names the driver.
 */
import Database from 'better-sqlite3';

export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get<T>(...params: unknown[]): T | undefined;
  all<T>(...params: unknown[]): T[];
}

export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  transaction<T>(fn: () => T): () => T;
  close(): void;
}

export function openSqlite(file: string): SqliteDatabase {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // FULL: a committed artifact survives a power cut, not only a process crash.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  return {
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => {
      const statement = db.prepare(sql);
      return {
        run: (...params) => statement.run(...params),
        get: <T>(...params: unknown[]) => statement.get(...params) as T | undefined,
        all: <T>(...params: unknown[]) => statement.all(...params) as T[],
      };
    },
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}
