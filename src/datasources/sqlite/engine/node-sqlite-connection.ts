/**
 * node:sqlite's DatabaseSync (Node from 22.13, and Deno) behind the
 * SqliteConnection interface: opened with readOnly (never creating a
 * file), 64-bit integers as bigint, rows as arrays where the runtime can
 * (setReturnArrays; before it, rows are objects and read by column name).
 */
import { rowFunctionOf } from './row-function.ts';
import type { OpenOptions, SqliteConnection, SqliteValue } from './sqlite-connection.ts';

interface NodeStatement {
  columns(): { name: string; type: string | null }[];
  iterate(...params: SqliteValue[]): Iterator<unknown>;
  all(...params: SqliteValue[]): unknown[];
  setReadBigInts(on: boolean): void;
  setReturnArrays?(on: boolean): void;
}

interface NodeFunctionOptions {
  useBigIntArguments: boolean;
  deterministic: boolean;
  directOnly: boolean;
  varargs: boolean;
}

interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  /** From Node 22.13 and 23.5; Deno's may lack it. */
  function?(name: string, options: NodeFunctionOptions, fn: (...values: SqliteValue[]) => unknown): void;
  exec(sql: string): void;
  close(): void;
}

export type DatabaseSyncConstructor = new (file: string, options: { readOnly: boolean; timeout?: number }) => NodeDatabase;

function arrayRows(statement: NodeStatement, params: SqliteValue[]): Iterator<SqliteValue[]> {
  if (statement.setReturnArrays !== undefined) {
    statement.setReturnArrays(true);
    return statement.iterate(...params) as Iterator<SqliteValue[]>;
  }
  // Without arrays a row is an object: a name given twice keeps one value (documented for these Node versions).
  const names = statement.columns().map((c) => c.name);
  const objects = statement.iterate(...params) as Iterator<Record<string, SqliteValue>>;
  return {
    next() {
      const step = objects.next();
      return step.done === true ? { done: true, value: undefined } : { done: false, value: names.map((n) => step.value[n] ?? null) };
    },
  };
}

export function nodeSqliteConnection(DatabaseSync: DatabaseSyncConstructor, file: string, options: OpenOptions): SqliteConnection {
  const db = new DatabaseSync(file, { readOnly: true, timeout: options.busyTimeoutMs });
  return {
    library: 'node:sqlite',
    prepare(sql) {
      const statement = db.prepare(sql);
      statement.setReadBigInts(true);
      return {
        columns: () => statement.columns().map((c) => ({ name: c.name, declaredType: c.type ?? null })),
        rows: (params) => arrayRows(statement, params),
      };
    },
    rowFunction(name, width, sink) {
      if (typeof db.function !== 'function') return false;
      db.function(name, { useBigIntArguments: true, deterministic: false, directOnly: true, varargs: false }, rowFunctionOf(width, sink) as (...values: SqliteValue[]) => unknown);
      return true;
    },
    all(sql, params = []) {
      const statement = db.prepare(sql);
      statement.setReadBigInts(true);
      return statement.all(...params) as Record<string, SqliteValue>[];
    },
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
  };
}
