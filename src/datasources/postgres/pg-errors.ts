/**
 * PostgreSQL's errors in the contract's codes: a refused write is
 * READ_ONLY_VIOLATION, the statement timeout QUERY_TIMEOUT, and any other
 * error the server reports (a SQLSTATE with a severity) SQL_ERROR with
 * PostgreSQL's own message, its 1-based position, detail and hint. What is
 * A server that cannot be reached, or that says it is shutting down or
 * starting, is DATASOURCE_UNAVAILABLE (503, retryable). What else is not
 * the server's (a socket lost mid-statement, a fault of ours) is left to
 * toSluiceError.
 */
import { datasourceUnavailable, isUnreachable, SluiceError, toSluiceError } from '../../errors.ts';

/** SQLSTATEs that mean "the statement was stopped", not "the SQL is wrong". */
export const SQLSTATE_QUERY_CANCELED = '57014';
export const SQLSTATE_READ_ONLY = '25006';

/** The server is shutting down, starting, or refuses connections now: the datasource is down, not the SQL wrong. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '08001', '08004', '08006']);

interface PgLikeError {
  code?: string;
  message?: string;
  position?: string;
  detail?: string;
  hint?: string;
  severity?: string;
}

/** The contract error for an error PostgreSQL reported; undefined for anything that is not one. */
export function pgError(error: unknown): SluiceError | undefined {
  if (error instanceof SluiceError) return undefined;
  const e = (error ?? {}) as PgLikeError;
  if (isUnreachable(error) || (e.code !== undefined && UNAVAILABLE_SQLSTATES.has(e.code))) return datasourceUnavailable(e.code ?? 'UNREACHABLE');
  if (e.code === SQLSTATE_READ_ONLY) {
    return new SluiceError('READ_ONLY_VIOLATION', `The database refused a write: ${e.message ?? ''}`.trim(), { sqlState: e.code });
  }
  if (e.code === SQLSTATE_QUERY_CANCELED && /statement timeout/i.test(e.message ?? '')) {
    return new SluiceError('QUERY_TIMEOUT', 'The database stopped the query at its statement timeout.', { sqlState: e.code });
  }
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && e.severity !== undefined) {
    const details: Record<string, unknown> = { sqlState: e.code };
    if (e.position !== undefined) details.position = Number(e.position);
    if (e.detail !== undefined) details.detail = e.detail;
    if (e.hint !== undefined) details.hint = e.hint;
    return new SluiceError('SQL_ERROR', e.message ?? 'The database rejected the statement.', details);
  }
  return undefined;
}

/** Anything thrown on a PostgreSQL datasource as a contract error: the server's own errors first. */
export function toPgSluiceError(error: unknown, fallback?: string): SluiceError {
  return pgError(error) ?? toSluiceError(error, fallback);
}
