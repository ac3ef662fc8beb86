/**
 * MySQL's and MariaDB's errors in the contract's codes, by the engine's
 * error number: a write refused by the READ ONLY transaction (or a file the
 * server will not write) is READ_ONLY_VIOLATION, the server's statement time
 * limit QUERY_TIMEOUT, a KILL QUERY QUERY_CANCELLED, a server that cannot be
 * reached DATASOURCE_UNAVAILABLE (503, retryable), and any other error the
 * server reports SQL_ERROR with its own message, and the position and line
 * it names when it names one. What is not the server's is left to
 * toSluiceError.
 */
import { SluiceError, toSluiceError } from '../../errors.ts';

export const ER_QUERY_INTERRUPTED = 1317;
const ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION = 1792;
const ER_OPTION_PREVENTS_STATEMENT = 1290;
const ER_READ_ONLY_MODE = 1836;
/** MariaDB's max_statement_time, and MySQL's MAX_EXECUTION_TIME (3024; 1907 in 5.7). */
const TIMEOUTS = new Set([1969, 3024, 1907]);
const ACCESS_DENIED_AT_CONNECT = 1045;
const UNKNOWN_DATABASE_AT_CONNECT = 1049;
const ER_PARSE_ERROR = 1064;

/** What mysql2 reports for a socket that could not be opened or was lost. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR']);
const CONNECTION_ERRNOS = new Set([1040, 1053, 1081, 1152, 1158, 1159, 1160, 1161, 1184, 1927, 2002, 2003, 2006, 2013]);

interface MysqlLikeError {
  errno?: number;
  code?: string;
  sqlState?: string;
  sqlMessage?: string;
  message?: string;
  fatal?: boolean;
}

export function unavailable(reason: string, retryable = true): SluiceError {
  const sentence = retryable
    ? 'The database server cannot be reached right now; the query can be retried.'
    : 'The database server refused the connection with the configured credentials or database; the datasource needs its configuration fixed.';
  return new SluiceError('DATASOURCE_UNAVAILABLE', sentence, { retryable, reason }, 503);
}

/** "... near 'FRM t' at line 1": the position of that text on that line of the statement, when it is there once. */
function serverPosition(message: string, sql: string | undefined): Record<string, unknown> {
  const match = /near '([\s\S]*)' at line (\d+)$/.exec(message);
  if (match === null) return {};
  const line = Number(match[2]);
  if (sql === undefined) return { line };
  const lines = sql.split('\n');
  const before = lines.slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0);
  const at = sql.indexOf(match[1]!.slice(0, 20), before);
  return at === -1 ? { line } : { line, position: [...sql.slice(0, at)].length + 1 };
}

/** The contract error for an error MySQL or MariaDB reported; undefined for anything that is not one. */
export function mysqlError(error: unknown, sql?: string): SluiceError | undefined {
  if (error instanceof SluiceError) return undefined;
  const e = (error ?? {}) as MysqlLikeError;
  if (e.code !== undefined && CONNECTION_CODES.has(e.code)) return unavailable(e.code);
  if (typeof e.errno !== 'number' || typeof e.sqlState !== 'string') return undefined;
  const message = e.sqlMessage ?? e.message ?? 'The database rejected the statement.';
  const details = { errno: e.errno, sqlState: e.sqlState };
  if (CONNECTION_ERRNOS.has(e.errno)) return unavailable(e.code ?? String(e.errno));
  if (e.errno === ACCESS_DENIED_AT_CONNECT || e.errno === UNKNOWN_DATABASE_AT_CONNECT) return unavailable(e.code ?? String(e.errno), false);
  if (e.errno === ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION || e.errno === ER_READ_ONLY_MODE || e.errno === ER_OPTION_PREVENTS_STATEMENT) {
    return new SluiceError('READ_ONLY_VIOLATION', `The database refused a write: ${message}`, details);
  }
  if (TIMEOUTS.has(e.errno)) return new SluiceError('QUERY_TIMEOUT', 'The database stopped the query at its statement time limit.', details);
  if (e.errno === ER_QUERY_INTERRUPTED) return new SluiceError('QUERY_CANCELLED', 'The query was cancelled on the database.', details);
  return new SluiceError('SQL_ERROR', message, e.errno === ER_PARSE_ERROR ? { ...details, ...serverPosition(message, sql) } : details);
}

/** Anything thrown on a MySQL datasource as a contract error: the server's own errors first. */
export function toMysqlSluiceError(error: unknown, sql?: string): SluiceError {
  return mysqlError(error, sql) ?? toSluiceError(error);
}
