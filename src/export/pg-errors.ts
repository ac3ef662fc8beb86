/**
 * Turns what postgres.js throws into contract errors: PostgreSQL's own
 * message and 1-based position for a bad statement, READ_ONLY_VIOLATION when
 * the database refused a write, QUERY_TIMEOUT when its statement timeout
 * fired, a retryable SQL_ERROR when the connection itself failed, an
 * SQL_ERROR that says what to cast when a numeric(p,s) column holds NaN, and
 * an INTERNAL that says so when DuckDB ran out of memory converting a row.
 */
import { SluiceError, SQLSTATE_QUERY_CANCELED, SQLSTATE_READ_ONLY } from '../errors.ts';

interface PgLikeError {
  code?: string;
  message?: string;
  position?: string;
  detail?: string;
  hint?: string;
  severity?: string;
}

const OUT_OF_MEMORY =
  'A row of the result is too large for the memory an export may use (values of about 10 MB each are the most it holds); select fewer or shorter columns, for example with left(column, n).';

/** A constrained numeric is stored as an exact DECIMAL, which has no NaN; unconstrained numeric is kept as its text. */
const NUMERIC_NAN =
  'A numeric column with a declared precision holds NaN, which an artifact can keep only for unconstrained numeric: cast the column to numeric (or text) in the query, for example x::numeric.';

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);

export function toSluiceError(error: unknown): SluiceError {
  if (error instanceof SluiceError) return error;
  const e = (error ?? {}) as PgLikeError;
  if (e.code !== undefined && CONNECTION_CODES.has(e.code)) {
    return new SluiceError('SQL_ERROR', 'The connection to the database failed; the query can be retried.', {
      retryable: true,
      reason: e.code,
    });
  }
  if (e.code === SQLSTATE_READ_ONLY) {
    return new SluiceError('READ_ONLY_VIOLATION', `The database refused a write: ${e.message ?? ''}`.trim(), {
      sqlState: e.code,
    });
  }
  if (e.code === SQLSTATE_QUERY_CANCELED && /statement timeout/i.test(e.message ?? '')) {
    return new SluiceError('QUERY_TIMEOUT', 'The database stopped the query at its statement timeout.', {
      sqlState: e.code,
    });
  }
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && e.severity !== undefined) {
    const details: Record<string, unknown> = { sqlState: e.code };
    if (e.position !== undefined) details.position = Number(e.position);
    if (e.detail !== undefined) details.detail = e.detail;
    if (e.hint !== undefined) details.hint = e.hint;
    return new SluiceError('SQL_ERROR', e.message ?? 'The database rejected the statement.', details);
  }
  if (/Could not convert string "NaN" to 'DECIMAL/.test(e.message ?? '')) {
    return new SluiceError('SQL_ERROR', NUMERIC_NAN, { reason: 'NUMERIC_NAN' });
  }
  // With one DuckDB thread and fixed-size row groups, only very long values run the conversion out of memory.
  const outOfMemory = /^Out of Memory Error/.test(e.message ?? '');
  const internal = outOfMemory
    ? new SluiceError('INTERNAL', OUT_OF_MEMORY, { reason: 'OUT_OF_MEMORY' })
    : new SluiceError('INTERNAL', 'The query failed unexpectedly.');
  // Never sent to the caller (errors cross to the API as code, message and details); the worker logs it for the operator.
  internal.cause = error;
  return internal;
}
