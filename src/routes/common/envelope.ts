/**
 * The response envelope of every /api route, as zod schemas (they become the
 * OpenAPI document) and as the helpers handlers answer with. A failure always
 * carries a contract code, a summary a person can act on, and the message.
 */
import { z } from '@hono/zod-openapi';
import { ERROR_CODES, SluiceError, type ErrorCode } from '../../errors.ts';

export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    summary: z.string(),
    data: z.null(),
    errorCode: z.enum(ERROR_CODES),
    error: z.object({ message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
  })
  .openapi('ErrorEnvelope');

export function envelope<T extends z.ZodType>(name: string, data: T) {
  return z
    .object({ success: z.literal(true), summary: z.string(), data, errorCode: z.null() })
    .openapi(name);
}

/** A JSON response entry of a route's OpenAPI definition. */
export function jsonResponse<T>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export interface ErrorBody {
  success: false;
  summary: string;
  data: null;
  errorCode: ErrorCode;
  error: { message: string; details?: Record<string, unknown> };
}

export function ok<T>(summary: string, data: T) {
  return { success: true as const, summary, data, errorCode: null };
}

export function errorBody(error: SluiceError): ErrorBody {
  return {
    success: false,
    summary: error.message,
    data: null,
    errorCode: error.code,
    error: error.details === undefined ? { message: error.message } : { message: error.message, details: error.details },
  };
}

const DESCRIPTIONS: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'Missing or unknown token.',
  FORBIDDEN: 'The token\u2019s role does not allow this route.',
  NOT_FOUND: 'No such resource for this caller.',
  VALIDATION_ERROR: 'The request is malformed or a value is out of range.',
  PAYLOAD_TOO_LARGE: 'The request body is larger than the server accepts.',
  RATE_LIMITED: 'Too many requests; retry after the time in Retry-After.',
  INTERNAL: 'An unexpected server error; nothing about it is leaked.',
};

/** Error responses for a route's OpenAPI entry, grouped by status. */
export function errorResponses(...codes: ErrorCode[]) {
  const all: ErrorCode[] = ['UNAUTHORIZED', 'FORBIDDEN', 'VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'INTERNAL', ...codes];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = new SluiceError(code, '').status;
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  }
  const responses: Record<number, { description: string; content: { 'application/json': { schema: typeof ErrorEnvelope } } }> = {};
  for (const [status, list] of byStatus) {
    responses[status] = {
      description: list.map((c) => `\`${c}\`${DESCRIPTIONS[c] ? `: ${DESCRIPTIONS[c]}` : ''}`).join(' '),
      content: { 'application/json': { schema: ErrorEnvelope } },
    };
  }
  return responses;
}
