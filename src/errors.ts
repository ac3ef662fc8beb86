/**
 * The error vocabulary of the API and the one way to it. Every failure a
 * caller can see is a SluiceError with a stable code from the contract;
 * `toSluiceError` turns anything thrown (a SluiceError, a database error, a
 * DuckDB error, anything else) into one, so no caller decides it again and
 * no stack trace or path ever leaves the process. Errors cross a worker
 * boundary as ErrorData, status included.
 */
export const ERROR_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'READ_ONLY_VIOLATION',
  'SQL_ERROR',
  'QUERY_TIMEOUT',
  'QUERY_CANCELLED',
  'INVALID_CURSOR',
  'CURSOR_EXPIRED',
  'ARTIFACT_EXPIRED',
  'UNSUPPORTED_CAPABILITY',
  'QUOTA_EXCEEDED',
  'RATE_LIMITED',
  'AI_NOT_CONFIGURED',
  'AI_UPSTREAM_ERROR',
  'SEMANTIC_VALIDATION_ERROR',
  'STORAGE_UNAVAILABLE',
  'ARTIFACT_CORRUPT',
  'DATASOURCE_UNAVAILABLE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Every status an error can answer with: the codes' own, and the overrides (a retryable 503, a full disk's 507). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 410 | 413 | 429 | 500 | 502 | 503 | 507;

const STATUS: Record<ErrorCode, ErrorStatus> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION_ERROR: 400,
  PAYLOAD_TOO_LARGE: 413,
  READ_ONLY_VIOLATION: 400,
  SQL_ERROR: 400,
  QUERY_TIMEOUT: 408,
  QUERY_CANCELLED: 409,
  INVALID_CURSOR: 400,
  CURSOR_EXPIRED: 410,
  ARTIFACT_EXPIRED: 410,
  UNSUPPORTED_CAPABILITY: 400,
  QUOTA_EXCEEDED: 403,
  RATE_LIMITED: 429,
  AI_NOT_CONFIGURED: 503,
  AI_UPSTREAM_ERROR: 502,
  SEMANTIC_VALIDATION_ERROR: 400,
  STORAGE_UNAVAILABLE: 503,
  ARTIFACT_CORRUPT: 500,
  DATASOURCE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

export function statusOf(code: ErrorCode): ErrorStatus {
  return STATUS[code];
}

/** A failure with a contract code, a summary a person can act on, and optional details. */
export class SluiceError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** Overrides the code's usual status where the class differs (a retryable 503, a full disk's 507). */
  readonly statusOverride: ErrorStatus | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, status?: ErrorStatus) {
    super(message);
    this.name = 'SluiceError';
    this.code = code;
    this.details = details;
    this.statusOverride = status;
  }

  get status(): ErrorStatus {
    return this.statusOverride ?? statusOf(this.code);
  }

  /** The same error with details added (the status kept). */
  withDetails(details: Record<string, unknown>): SluiceError {
    return new SluiceError(this.code, this.message, { ...this.details, ...details }, this.statusOverride);
  }
}

/** The plain-data form of an error, as it crosses a worker boundary. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  status?: ErrorStatus;
}

export function toErrorData(error: unknown): ErrorData {
  const e = toSluiceError(error);
  return {
    code: e.code,
    message: e.message,
    ...(e.details === undefined ? {} : { details: e.details }),
    ...(e.statusOverride === undefined ? {} : { status: e.statusOverride }),
  };
}

export function fromErrorData(data: ErrorData): SluiceError {
  return new SluiceError(data.code, data.message, data.details, data.status);
}

const OUT_OF_MEMORY =
  'A row of the result is too large for the memory an export may use (values of about 10 MB each are the most it holds); select fewer or shorter columns, for example with left(column, n).';

/** A constrained numeric is stored as an exact DECIMAL, which has no NaN; unconstrained numeric is kept as its text. */
const NUMERIC_NAN =
  'A numeric column with a declared precision holds NaN, which an artifact can keep only for unconstrained numeric: cast the column to numeric (or text) in the query, for example x::numeric.';

/** Said of a full disk wherever it fills, and in the STORAGE_FULL outcome routes declare. */
const DISK_FULL = 'The server\u2019s disk is full; nothing was kept.';

/** The disk is full or over a quota, as the OS says it (an errno code) or DuckDB does (in its message). */
export function isDiskFull(error: unknown): boolean {
  const e = (error ?? {}) as { code?: unknown; message?: unknown };
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT') return true;
  return typeof e.message === 'string' && /no space left on device|disk quota exceeded/i.test(e.message);
}

/** A full disk as the contract answers it: INTERNAL with reason STORAGE_FULL and 507, for the operator to free space. */
export function diskFullError(message = DISK_FULL): SluiceError {
  return new SluiceError('INTERNAL', message, { reason: 'STORAGE_FULL' }, 507);
}

/** Errors (errno and node-postgres/mysql2 codes) that say the engine cannot be reached at all, as opposed to a connection lost mid-statement. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ETIMEDOUT', 'PROTOCOL_CONNECTION_LOST']);

/** True when `error` says the datasource's engine cannot be reached (its errno or client code). */
export function isUnreachable(error: unknown): boolean {
  const code = (error ?? {}) as { code?: unknown };
  return typeof code.code === 'string' && UNREACHABLE_CODES.has(code.code);
}

/**
 * A datasource whose engine cannot be reached now: 503 and retryable, with
 * `reason` the client's code (ECONNREFUSED, ...), never the URL or a path.
 */
export function datasourceUnavailable(reason: string, message = 'The datasource\u2019s database cannot be reached right now; the query can be retried shortly.'): SluiceError {
  return new SluiceError('DATASOURCE_UNAVAILABLE', message, { retryable: true, reason });
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);

/**
 * Any thrown value as a contract error: a SluiceError as it is; a lost or
 * refused connection as a retryable SQL_ERROR (an engine's own errors are
 * its driver's to map first, see datasources/driver.ts); a full disk as
 * INTERNAL with reason STORAGE_FULL and 507; DuckDB's NaN-in-DECIMAL and out-of-memory as errors that say what to do;
 * anything else as INTERNAL with `fallback` as its message. Every INTERNAL
 * keeps the original as `cause`, for the operator's log only.
 */
export function toSluiceError(error: unknown, fallback = 'An internal error occurred.'): SluiceError {
  if (error instanceof SluiceError) return error;
  const e = (error ?? {}) as { code?: string; message?: string };
  if (e.code !== undefined && CONNECTION_CODES.has(e.code)) {
    return new SluiceError('SQL_ERROR', 'The connection to the database failed; the query can be retried.', { retryable: true, reason: e.code });
  }
  if (/Could not convert string "NaN" to 'DECIMAL/.test(e.message ?? '')) {
    return new SluiceError('SQL_ERROR', NUMERIC_NAN, { reason: 'NUMERIC_NAN' });
  }
  let internal: SluiceError;
  if (isDiskFull(error)) internal = diskFullError();
  // With one DuckDB thread and fixed-size row groups, only very long values run the conversion out of memory.
  else if (/^Out of Memory Error/.test(e.message ?? '')) internal = new SluiceError('INTERNAL', OUT_OF_MEMORY, { reason: 'OUT_OF_MEMORY' });
  else internal = new SluiceError('INTERNAL', fallback);
  // Never sent to the caller (errors cross to the API as code, message and details); logged for the operator.
  internal.cause = error;
  return internal;
}
