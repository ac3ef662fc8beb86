/**
 * Chooses the SQLite library by runtime and opens a read-only connection
 * with it. The library module is imported the first time a connection is
 * opened, by a specifier held in a variable, so neither the type checker
 * nor a runtime ever reaches for a module its runtime does not have.
 */
import { betterSqlite3Connection } from './better-sqlite3-connection.ts';
import { bunSqliteConnection, type BunDatabaseConstructor } from './bun-sqlite-connection.ts';
import { nodeSqliteConnection, type DatabaseSyncConstructor } from './node-sqlite-connection.ts';
import type { OpenOptions, SqliteConnection, SqliteLibrary } from './sqlite-connection.ts';

type Opener = (file: string, options: OpenOptions) => SqliteConnection;

/** node:sqlite runs without a flag from Node 22.13 (and in every Node 23+). */
const NODE_SQLITE_FROM: [number, number] = [22, 13];

/** Which library this runtime uses: a pure function of the runtime, so tests can check the choice. */
export function libraryFor(runtime: { bun: boolean; deno: boolean; nodeVersion: string }): SqliteLibrary {
  if (runtime.bun) return 'bun:sqlite';
  if (runtime.deno) return 'node:sqlite';
  const [major = 0, minor = 0] = runtime.nodeVersion.split('.').map(Number);
  const [fromMajor, fromMinor] = NODE_SQLITE_FROM;
  return major > fromMajor || (major === fromMajor && minor >= fromMinor) ? 'node:sqlite' : 'better-sqlite3';
}

export function currentLibrary(): SqliteLibrary {
  return libraryFor({ bun: 'Bun' in globalThis, deno: 'Deno' in globalThis, nodeVersion: process.versions.node });
}

async function load(library: SqliteLibrary): Promise<Opener> {
  // A variable specifier: the module is resolved here, at run time, and only this one.
  const specifier: string = library;
  const module = (await import(specifier)) as Record<string, unknown>;
  switch (library) {
    case 'bun:sqlite':
      return (file, options) => bunSqliteConnection(module.Database as BunDatabaseConstructor, file, options);
    case 'node:sqlite':
      return (file, options) => nodeSqliteConnection(module.DatabaseSync as DatabaseSyncConstructor, file, options);
    case 'better-sqlite3':
      return (file, options) => betterSqlite3Connection(module.default as Parameters<typeof betterSqlite3Connection>[0], file, options);
  }
}

let opener: Promise<Opener> | null = null;

/**
 * A read-only connection to `file`, which must exist: `PRAGMA query_only`
 * on top of the library's read-only open, so SQLite itself refuses a write
 * even if one reached it.
 */
export async function openReadOnly(file: string, options: OpenOptions): Promise<SqliteConnection> {
  opener ??= load(currentLibrary());
  const open = await opener;
  const connection = open(file, options);
  try {
    connection.exec('PRAGMA query_only = ON');
  } catch (error) {
    connection.close();
    throw error;
  }
  return connection;
}
