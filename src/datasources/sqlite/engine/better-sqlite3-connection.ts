/**
 * better-sqlite3 (Node 20) behind the SqliteConnection interface: opened
 * read-only with fileMustExist (never creating a file), 64-bit integers
 * as bigint, rows as arrays. better-sqlite3 binds a ?N placeholder by
 * name only (an object keyed N), so values go in that way: the driver
 * writes every placeholder as ?N.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { rowFunctionOf } from './row-function.ts';
import type { OpenOptions, SqliteConnection, SqliteValue } from './sqlite-connection.ts';

type Constructor = new (file: string, options: BetterSqlite3.Options) => BetterSqlite3.Database;

function byNumber(params: SqliteValue[]): [Record<number, SqliteValue>] | [] {
  return params.length === 0 ? [] : [Object.fromEntries(params.map((value, i) => [i + 1, value]))];
}

export function betterSqlite3Connection(Database: Constructor, file: string, options: OpenOptions): SqliteConnection {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs });
  return {
    library: 'better-sqlite3',
    prepare(sql) {
      const statement = db.prepare(sql);
      return {
        columns: () => (statement.reader ? statement.columns().map((c) => ({ name: c.name, declaredType: c.type })) : []),
        rows: (params) => statement.raw(true).safeIntegers(true).iterate(...byNumber(params)) as Iterator<SqliteValue[]>,
      };
    },
    rowFunction(name, width, sink) {
      db.function(name, { safeIntegers: true, deterministic: false, directOnly: true }, rowFunctionOf(width, sink) as (...values: unknown[]) => unknown);
      return true;
    },
    all: (sql, params = []) => db.prepare(sql).safeIntegers(true).all(...byNumber(params)) as Record<string, SqliteValue>[],
    exec: (sql) => void db.exec(sql),
    close: () => db.close(),
  };
}
