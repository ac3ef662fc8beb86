/**
 * The names the read-only check refuses or allows, as SQLite knows them.
 * Functions that reach outside the database or into its internals; table-
 * valued functions and virtual tables that read or write raw pages or the
 * filesystem; and the PRAGMAs a query may read (informational ones about
 * tables and indexes, never one that shows a file path or changes a
 * setting). Most of the refused ones exist only in SQLite's shell or
 * builds with extensions: refusing them everywhere costs nothing and holds
 * if a build ever has them.
 */

/** Scalar and aggregate functions, by lower-case name, with why they are refused. */
export const DENIED_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['load_extension', 'loads native code into the server'],
  ['readfile', "reads a file from the server's disk"],
  ['writefile', "writes a file to the server's disk"],
  ['edit', 'starts an editor on the server'],
  ['fts3_tokenizer', 'can register native code as a tokenizer'],
  ['zipfile', 'writes zip archives'],
  ['sqlar_compress', 'belongs to the archive writer'],
  ['sqlar_uncompress', 'belongs to the archive writer'],
  ['lsmode', 'describes files on the server'],
  ['sqlite_rename_column', 'is internal to SQLite'],
  ['sqlite_rename_table', 'is internal to SQLite'],
  ['sqlite_rename_test', 'is internal to SQLite'],
  ['sqlite_rename_quotefix', 'is internal to SQLite'],
  ['sqlite_drop_column', 'is internal to SQLite'],
]);

/** Tables and table-valued functions that read raw pages, the filesystem or archives. */
export const DENIED_TABLES: ReadonlyMap<string, string> = new Map([
  ['sqlite_dbpage', "reads and writes the database file's raw pages"],
  ['sqlite_dbdata', "reads the database file's raw records"],
  ['sqlite_dbptr', "reads the database file's raw pages"],
  ['fsdir', "lists files on the server's disk"],
  ['zipfile', 'reads and writes zip archives on the server'],
]);

/** PRAGMAs a query may read, as a PRAGMA statement or a pragma_… table-valued function. */
export const READ_PRAGMAS: ReadonlySet<string> = new Set([
  'table_info',
  'table_xinfo',
  'table_list',
  'index_list',
  'index_info',
  'index_xinfo',
  'foreign_key_list',
  'collation_list',
  'function_list',
  'module_list',
]);

const PRAGMA_PREFIX = 'pragma_';

/** Why a name used as a table (or anywhere a table name can stand) is refused; undefined when it is not. */
export function deniedTableReason(name: string): string | undefined {
  const denied = DENIED_TABLES.get(name);
  if (denied !== undefined) return denied;
  if (name.startsWith(PRAGMA_PREFIX) && !READ_PRAGMAS.has(name.slice(PRAGMA_PREFIX.length))) {
    return 'is a PRAGMA a query may not read (it can show file paths or settings)';
  }
  return undefined;
}
