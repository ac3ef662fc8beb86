/**
 * What a failure of a bytes backend means to a caller, decided once for
 * every backend. A backend that cannot be reached (refused, reset, a name
 * that does not resolve, a timeout, a 5xx or throttling left after the SDK's
 * own retries) is STORAGE_UNAVAILABLE and retryable; a backend that answers
 * but refuses us (credentials, a missing bucket, a read-only disk) is also
 * STORAGE_UNAVAILABLE, not retryable, because only an operator can fix it.
 * Messages are fixed sentences: an SDK's or the OS's message can name the
 * endpoint, the bucket or a path, so it goes to `cause` (the operator's log)
 * and only a short reason code goes into details.
 */
import { SluiceError, toSluiceError } from '../../errors.ts';

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN',
  'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'EIO', 'TimeoutError', 'RequestTimeout',
  'RequestTimeoutException', 'SlowDown', 'ServiceUnavailable', 'InternalError', 'ThrottlingException',
]);

const REFUSED_CODES = new Set([
  'AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken',
  'NoSuchBucket', 'CredentialsProviderError', 'EACCES', 'EPERM', 'EROFS', 'ENOTDIR',
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  Code?: unknown;
  errors?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/** The first code that classifies the error, looking through wrappers (AggregateError, cause). */
function reasonOf(error: unknown, depth = 0): { reason: string; retryable: boolean } | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  const e = error as ErrorLike;
  for (const code of [e.code, e.Code, e.name]) {
    if (typeof code !== 'string') continue;
    if (UNREACHABLE_CODES.has(code)) return { reason: code, retryable: true };
    if (REFUSED_CODES.has(code)) return { reason: code, retryable: false };
  }
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status >= 500 || status === 429)) return { reason: `HTTP_${status}`, retryable: true };
  if (typeof status === 'number' && (status === 401 || status === 403)) return { reason: `HTTP_${status}`, retryable: false };
  for (const inner of [...(Array.isArray(e.errors) ? e.errors : []), e.cause]) {
    const found = reasonOf(inner, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Any failure of a bytes operation as a contract error; SluiceErrors pass
 * through unchanged. What is not about reaching the backend, a full disk
 * included (507), is left to the common mapping.
 */
export function storageError(error: unknown): SluiceError {
  if (error instanceof SluiceError) return error;
  const found = reasonOf(error);
  if (found === undefined) return toSluiceError(error, 'The artifact storage failed unexpectedly.');
  const mapped = found.retryable
    ? new SluiceError('STORAGE_UNAVAILABLE', 'The artifact storage cannot be reached right now; retry shortly.', { retryable: true, reason: found.reason })
    : new SluiceError('STORAGE_UNAVAILABLE', 'The artifact storage refused access; its configuration needs an operator.', { retryable: false, reason: found.reason });
  mapped.cause = error;
  return mapped;
}

/** Runs a backend operation with its failures mapped. */
export async function guarded<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw storageError(error);
  }
}
