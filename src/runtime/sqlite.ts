/**
 * The embedded catalog's database handle, behind one small interface:
 * bun:sqlite on Bun (which refuses better-sqlite3); node:sqlite wherever the
 * runtime has it without a flag, that is Deno (which loads only Node-API
 * addons, and better-sqlite3 is not one) and Node from 22.13; better-sqlite3
 * on Node 20, which has no node:sqlite. better-sqlite3 is a native addon
 * built for one Node ABI, so a node_modules installed for one Node line
 * would not load it on another; node:sqlite comes with the runtime. All are
 * synchronous, which is what makes catalog changes and quota counts one
 * transaction with no interleaving; their statements take microseconds, so
 * the event loop never waits on them for long. This is the one file that
 * names a SQLite driver; each is loaded only where it runs.
 */
import { createRequire } from 'node:module';
import { transactionsOver } from './sqlite-transactions.ts';

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

type BareDatabase = Omit<NativeDatabase, 'transaction'>;

/** node:sqlite, or null where the runtime has none without a flag (Node 20; Node 22 before 22.13). */
function builtinSqlite(): (new (file: string) => BareDatabase) | null {
  try {
    return (require('node:sqlite') as { DatabaseSync: new (file: string) => BareDatabase }).DatabaseSync;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_UNKNOWN_BUILTIN_MODULE') return null;
    throw error;
  }
}

function openNative(file: string): NativeDatabase {
  if ('Bun' in globalThis) {
    const { Database } = require('bun:sqlite') as { Database: new (file: string) => NativeDatabase };
    return new Database(file);
  }
  const DatabaseSync = builtinSqlite();
  if (DatabaseSync !== null) {
    const db = new DatabaseSync(file);
    return Object.assign(db, { transaction: transactionsOver(db) });
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
  // better-sqlite3's default; bun:sqlite and node:sqlite on Node would fail at once on a lock held elsewhere.
  db.exec('PRAGMA busy_timeout = 5000');
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
