/**
 * The error vocabulary of the API. Every failure a caller can see is a
 * SluiceError with a stable code from the contract; anything else is turned
 * into INTERNAL at the edge, so no stack trace or path ever leaves the process.
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
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const STATUS: Record<ErrorCode, number> = {
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
  INTERNAL: 500,
};

export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

/** A failure with a contract code, a summary a person can act on, and optional details. */
export class SluiceError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** Overrides the code's usual status where the class differs (a retryable 503). */
  readonly statusOverride: number | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, status?: number) {
    super(message);
    this.name = 'SluiceError';
    this.code = code;
    this.details = details;
    this.statusOverride = status;
  }

  get status(): number {
    return this.statusOverride ?? statusOf(this.code);
  }
}

/** The plain-data form of an error, as it crosses a worker boundary. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export function toErrorData(error: unknown): ErrorData {
  if (error instanceof SluiceError) {
    return error.details === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, details: error.details };
  }
  return { code: 'INTERNAL', message: 'An internal error occurred.' };
}

export function fromErrorData(data: ErrorData): SluiceError {
  return new SluiceError(data.code, data.message, data.details);
}

/** PostgreSQL SQLSTATEs that mean "the statement was stopped", not "the SQL is wrong". */
export const SQLSTATE_QUERY_CANCELED = '57014';
export const SQLSTATE_READ_ONLY = '25006';
