/**
 * The embedded catalog's database handle: better-sqlite3 on Node,
 * bun:sqlite on Bun (which refuses better-sqlite3) and node:sqlite on Deno
 * (which loads only Node-API addons, and better-sqlite3 is not one), behind
 * one small interface. Both are synchronous, which is what makes catalog changes and
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

/** node:sqlite has no transaction helper: the same one, over BEGIN / COMMIT / ROLLBACK. */
function withTransactions(db: Omit<NativeDatabase, 'transaction'>): NativeDatabase {
  return Object.assign(db, {
    transaction<T>(fn: () => T): () => T {
      return () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = fn();
          db.exec('COMMIT');
          return result;
        } catch (error) {
          db.exec('ROLLBACK');
          throw error;
        }
      };
    },
  });
}

function openNative(file: string): NativeDatabase {
  if ('Deno' in globalThis) {
    const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (file: string) => Omit<NativeDatabase, 'transaction'> };
    return withTransactions(new DatabaseSync(file));
  }
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
