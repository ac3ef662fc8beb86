/**
 * SQLite's errors in the contract's codes, whichever library raised them
 * (better-sqlite3 names the result code, node:sqlite numbers it, Deno and
 * Bun name or number it too; a statement process relays it as data): a
 * refused write is READ_ONLY_VIOLATION, a file that cannot be opened or read
 * as a database, or that a writer keeps locked, DATASOURCE_UNAVAILABLE (with
 * no path in the message), any other SQLite error SQL_ERROR with SQLite's
 * own message. What is not SQLite's is left to toSluiceError.
 */
import { SluiceError, toSluiceError } from '../../errors.ts';

/** SQLite's primary result codes by number, for the libraries that give the number. */
const PRIMARY_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR', 2: 'SQLITE_INTERNAL', 3: 'SQLITE_PERM', 4: 'SQLITE_ABORT', 5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED', 7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY', 9: 'SQLITE_INTERRUPT', 10: 'SQLITE_IOERR', 11: 'SQLITE_CORRUPT', 13: 'SQLITE_FULL', 14: 'SQLITE_CANTOPEN',
  17: 'SQLITE_SCHEMA', 18: 'SQLITE_TOOBIG', 19: 'SQLITE_CONSTRAINT', 20: 'SQLITE_MISMATCH', 21: 'SQLITE_MISUSE', 23: 'SQLITE_AUTH',
  25: 'SQLITE_RANGE', 26: 'SQLITE_NOTADB',
};

/** SQLite's own messages for the codes that decide the contract code, for a library that gives only the message (Deno). */
const CODE_BY_MESSAGE: Record<string, string> = {
  'attempt to write a readonly database': 'SQLITE_READONLY',
  'unable to open database file': 'SQLITE_CANTOPEN',
  'file is not a database': 'SQLITE_NOTADB',
  'database is locked': 'SQLITE_BUSY',
  interrupted: 'SQLITE_INTERRUPT',
};

/** An error SQLite reported, in one shape: its primary result code and its message. */
export interface SqliteFailure {
  code: string;
  message: string;
}

/** What a statement process sends back for an error SQLite raised. */
export class SqliteEngineError extends Error {
  readonly sqliteCode: string;

  constructor(failure: SqliteFailure) {
    super(failure.message);
    this.name = 'SqliteEngineError';
    this.sqliteCode = failure.code;
  }
}

function primary(code: string): string {
  const cut = code.indexOf('_', 'SQLITE_'.length);
  return cut < 0 ? code : code.slice(0, cut);
}

/** The SQLite failure in `error`, whichever library threw it; undefined for anything SQLite did not report. */
export function sqliteFailureOf(error: unknown): SqliteFailure | undefined {
  if (error instanceof SluiceError || typeof error !== 'object' || error === null) return undefined;
  const e = error as { sqliteCode?: unknown; code?: unknown; errcode?: unknown; errno?: unknown; errstr?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : 'SQLite reported an error.';
  if (typeof e.sqliteCode === 'string') return { code: e.sqliteCode, message };
  if (typeof e.code === 'string' && e.code.startsWith('SQLITE_')) return { code: primary(e.code), message };
  if (e.code === 'ERR_SQLITE_ERROR') {
    const numbered = typeof e.errcode === 'number' ? PRIMARY_CODES[e.errcode & 0xff] : undefined;
    return { code: numbered ?? CODE_BY_MESSAGE[message] ?? 'SQLITE_ERROR', message };
  }
  return undefined;
}

const UNAVAILABLE: Record<string, string> = {
  SQLITE_CANTOPEN: 'The SQLite file of this datasource cannot be opened: it is missing or the server may not read it.',
  SQLITE_NOTADB: 'The file of this SQLite datasource is not a SQLite database.',
  SQLITE_IOERR: 'The SQLite file of this datasource could not be read.',
  SQLITE_BUSY: 'The SQLite file of this datasource is locked by a writer; retry in a moment.',
  SQLITE_PERM: 'The SQLite file of this datasource cannot be opened: the server may not read it.',
};

/** The contract error for a SQLite failure. */
export function fromSqliteFailure(failure: SqliteFailure): SluiceError {
  if (failure.code === 'SQLITE_READONLY') {
    return new SluiceError('READ_ONLY_VIOLATION', `The database refused a write: ${failure.message}`, { sqliteCode: failure.code });
  }
  const unavailable = UNAVAILABLE[failure.code];
  if (unavailable !== undefined) return new SluiceError('DATASOURCE_UNAVAILABLE', unavailable, { retryable: true, sqliteCode: failure.code });
  return new SluiceError('SQL_ERROR', failure.message, { sqliteCode: failure.code });
}

/** The contract error for an error SQLite reported; undefined for anything else. */
export function sqliteError(error: unknown): SluiceError | undefined {
  const failure = sqliteFailureOf(error);
  return failure === undefined ? undefined : fromSqliteFailure(failure);
}

export function toSqliteSluiceError(error: unknown): SluiceError {
  return sqliteError(error) ?? toSluiceError(error);
}

/** Opening the file failed in a way the library reports itself (a missing directory): never with the path. */
export function unavailable(): SluiceError {
  return fromSqliteFailure({ code: 'SQLITE_CANTOPEN', message: '' });
}
