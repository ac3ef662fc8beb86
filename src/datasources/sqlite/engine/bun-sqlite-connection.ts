/**
 * bun:sqlite (Bun) behind the SqliteConnection interface: opened readonly
 * (never creating a file), 64-bit integers as bigint. Bun iterates rows
 * as objects only, keyed by column name; a statement whose result names a
 * column twice is read through `SELECT * FROM (…)`, where SQLite makes the
 * names unique, so no value is lost.
 */
import type { OpenOptions, SqliteConnection, SqliteValue } from './sqlite-connection.ts';

interface BunStatement {
  readonly columnNames: string[];
  readonly declaredTypes: (string | null)[];
  iterate(...params: SqliteValue[]): IterableIterator<Record<string, SqliteValue>>;
  all(...params: SqliteValue[]): Record<string, SqliteValue>[];
}

interface BunDatabase {
  prepare(sql: string): BunStatement;
  exec(sql: string): void;
  close(): void;
}

export type BunDatabaseConstructor = new (file: string, options: { readonly: boolean; safeIntegers: boolean }) => BunDatabase;

function rowsOf(db: BunDatabase, sql: string, statement: BunStatement, params: SqliteValue[]): Iterator<SqliteValue[]> {
  const names = statement.columnNames;
  const unique = new Set(names).size === names.length;
  const reader = unique ? statement : db.prepare(`SELECT * FROM (${sql}\n)`);
  const keys = reader.columnNames;
  const objects = reader.iterate(...params);
  return {
    next() {
      const step = objects.next();
      return step.done === true ? { done: true, value: undefined } : { done: false, value: keys.map((k) => step.value[k] ?? null) };
    },
  };
}

export function bunSqliteConnection(Database: BunDatabaseConstructor, file: string, options: OpenOptions): SqliteConnection {
  const db = new Database(file, { readonly: true, safeIntegers: true });
  // bun:sqlite takes no busy timeout option; the pragma sets the same handler.
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  return {
    library: 'bun:sqlite',
    prepare(sql) {
      const statement = db.prepare(sql);
      return {
        columns: () => statement.columnNames.map((name, i) => ({ name, declaredType: statement.declaredTypes[i] ?? null })),
        rows: (params) => rowsOf(db, sql, statement, params),
      };
    },
    // bun:sqlite runs no SQL functions of JavaScript.
    rowFunction: () => false,
    all: (sql, params = []) => db.prepare(sql).all(...params),
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
  };
}
