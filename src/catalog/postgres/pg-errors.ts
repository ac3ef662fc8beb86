/**
 * What a failure of the shared catalog means to a caller. Anything that says
 * "the database cannot be reached or cannot serve now" is STORAGE_UNAVAILABLE
 * (503, retryable), never INTERNAL and never SQL_ERROR: the caller's request
 * was fine. The message is fixed text, so no URL, host or password in a
 * driver's message can reach a response; the cause is kept for the log.
 */
import { SluiceError, toSluiceError } from '../../errors.ts';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * node-postgres reports a connection that ended, or could not be made in
 * time, with these messages and no code.
 */
const CONNECTION_MESSAGES = [/^Connection terminated/, /is not queryable/, /^timeout exceeded when trying to connect/, /^Query read timeout/];

/**
 * SQLSTATE classes and codes of an unreachable or unwilling server: 08
 * connection exception, 28 invalid authorization, 53 insufficient resources
 * (too many connections, disk full), 57P01-03 shutdown or start-up, 3D000
 * no such database, 57014 a statement stopped by its timeout (a lock held
 * too long elsewhere).
 */
function unavailableSqlState(code: string): boolean {
  return /^(08|28|53)/.test(code) || ['57P01', '57P02', '57P03', '3D000', '57014'].includes(code);
}

/** Serialization failure or deadlock: the transaction may simply be run again. */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

function codesOf(error: unknown): string[] {
  const e = error as { code?: unknown; errors?: unknown } | null;
  const own = typeof e?.code === 'string' ? [e.code] : [];
  // Node reports a failed connection to several addresses as an AggregateError.
  const nested = Array.isArray(e?.errors) ? e.errors.flatMap(codesOf) : [];
  return [...own, ...nested];
}

const UNEXPECTED = 'The artifact catalog failed unexpectedly.';

/**
 * The catalog's statements are ours, not the caller's: PostgreSQL refusing
 * one is our fault, never the SQL_ERROR the common mapping makes of it.
 */
function isSqlState(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

export function catalogError(error: unknown): SluiceError {
  if (error instanceof SluiceError) return error;
  const codes = codesOf(error);
  const message = (error as { message?: unknown } | null)?.message;
  const reason =
    codes.find((c) => NETWORK_CODES.has(c) || unavailableSqlState(c)) ??
    (typeof message === 'string' && CONNECTION_MESSAGES.some((m) => m.test(message)) ? 'CONNECTION_LOST' : undefined);
  if (reason === undefined && !isSqlState(error)) return toSluiceError(error, UNEXPECTED);
  const mapped =
    reason === undefined
      ? new SluiceError('INTERNAL', UNEXPECTED)
      : new SluiceError('STORAGE_UNAVAILABLE', 'The artifact catalog cannot be reached right now; try again shortly.', { retryable: true, reason });
  // For the operator's log only: responses carry code, message and details.
  mapped.cause = error;
  return mapped;
}
