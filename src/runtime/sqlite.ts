/**
 * The embedded catalog's database handle: better-sqlite3 on Node and Deno,
 * bun:sqlite on Bun (which refuses better-sqlite3), behind one small
 * interface. Both are synchronous, which is what makes catalog changes and
 * quota counts one transaction with no interleaving; their statements take
 * microseconds, so the event loop never waits on them for long. This is the
 * one file that names a SQLite driver; each is loaded only where it runs.
 */
import { createRequire } from 'node:module';

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

interface NativeStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

interface NativeDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): NativeStatement;
  transaction<T>(fn: () => T): () => T;
  close(): void;
}

const require = createRequire(import.meta.url);

function openNative(file: string): NativeDatabase {
  if ('Bun' in globalThis) {
    const { Database } = require('bun:sqlite') as { Database: new (file: string) => NativeDatabase };
    return new Database(file);
  }
  const Database = require('better-sqlite3') as new (file: string) => NativeDatabase;
  return new Database(file);
}

/** bun:sqlite answers `undefined` as null; callers expect undefined for "no row". */
function noRow<T>(value: unknown): T | undefined {
  return value === null || value === undefined ? undefined : (value as T);
}

export function openSqlite(file: string): SqliteDatabase {
  const db = openNative(file);
  db.exec('PRAGMA journal_mode = WAL');
  // FULL: a committed artifact survives a power cut, not only a process crash.
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA foreign_keys = ON');
  return {
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => {
      const statement = db.prepare(sql);
      return {
        run: (...params) => statement.run(...params),
        get: <T>(...params: unknown[]) => noRow<T>(statement.get(...params)),
        all: <T>(...params: unknown[]) => statement.all(...params) as T[],
      };
    },
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}
