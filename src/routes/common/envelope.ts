/**
 * The response envelope of every /api route, as zod schemas (they become the
 * OpenAPI document) and as the helpers handlers answer with. A failure always
 * carries a contract code, a summary a person can act on, and the message.
 */
import { randomUUID } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import type { JSONParsed } from 'hono/utils/types';
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

/** Stands where the rows go in an answer's text: no value can spell it (a new one each process). */
const ROWS_HERE = JSON.stringify(`\u0000rows-${randomUUID()}`);

/**
 * The text of `ok(summary, data)` whose `data.rows` is rows kept as JSON
 * text (ReadPage.rowsJson), joined in as they are: byte for byte what
 * JSON.stringify would write of the parsed rows, without parsing them.
 */
export function okJsonWithRows(summary: string, data: { rows: string[] } & Record<string, unknown>): string {
  const text = JSON.stringify(ok(summary, { ...data, rows: JSON.parse(ROWS_HERE) as string }));
  return text.replace(ROWS_HERE, () => `[${data.rows.join(',')}]`);
}

/**
 * A 200 whose body is JSON text made already, typed as the `schema` answer
 * `c.json` would have made of it: the text must be what JSON.stringify
 * writes of such a value (okJsonWithRows makes it so).
 */
export function jsonText<S extends z.ZodType>(c: Context, _schema: S, text: string): Response & TypedResponse<JSONParsed<z.infer<S>>, 200, 'json'> {
  return c.body(text, 200, { 'Content-Type': 'application/json' }) as unknown as Response & TypedResponse<JSONParsed<z.infer<S>>, 200, 'json'>;
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
  UNAUTHORIZED: 'Missing or unknown token, or a JWT that failed verification (the sentence names the check).',
  FORBIDDEN: 'The token\u2019s role does not allow this route.',
  NOT_FOUND: 'No such resource for this caller.',
  VALIDATION_ERROR: 'The request is malformed or a value is out of range.',
  PAYLOAD_TOO_LARGE: 'The request body is larger than the server accepts.',
  RATE_LIMITED: 'Too many requests; retry after the time in Retry-After.',
  STORAGE_UNAVAILABLE: 'The artifact catalog or the artifact bytes cannot be reached; retryable.',
  ARTIFACT_CORRUPT: 'The stored bytes fail their hash; the artifact cannot be served.',
  AI_NOT_CONFIGURED: 'No model is configured on this server.',
  INTERNAL: 'An unexpected server error; nothing about it is leaked.',
};

/**
 * A failure answered with a status other than its code's usual one (a
 * SluiceError's status override), so a route can declare that status too.
 */
export interface ErrorOutcome {
  code: ErrorCode;
  status: number;
  description: string;
}

/** What every /api route can fail with, whatever it does: the token, the role, the body, the rate limit, a bug. */
const EVERY_API_ROUTE: ErrorCode[] = ['UNAUTHORIZED', 'FORBIDDEN', 'VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED', 'INTERNAL'];

type ErrorEntry = { description: string; content: { 'application/json': { schema: typeof ErrorEnvelope } } };

/**
 * Error responses for a route's OpenAPI entry, grouped by status: those of
 * every /api route and the codes (or outcomes) given. Each status's
 * description names its codes in backticks, which test/openapi checks
 * against the codes a route is seen to answer.
 */
export function errorResponses(...failures: (ErrorCode | ErrorOutcome)[]): Record<number, ErrorEntry> {
  const outcomes = [...EVERY_API_ROUTE, ...failures].map((f) => (typeof f === 'string' ? outcomeOf(f) : f));
  const byStatus = new Map<number, string[]>();
  for (const { status, code, description } of outcomes) {
    const line = `\`${code}\`${description ? `: ${description}` : ''}`;
    const lines = byStatus.get(status) ?? [];
    if (!lines.includes(line)) lines.push(line);
    byStatus.set(status, lines);
  }
  const responses: Record<number, ErrorEntry> = {};
  for (const [status, lines] of byStatus) {
    responses[status] = { description: lines.join(' '), content: { 'application/json': { schema: ErrorEnvelope } } };
  }
  return responses;
}

function outcomeOf(code: ErrorCode): ErrorOutcome {
  return { code, status: new SluiceError(code, '').status, description: DESCRIPTIONS[code] ?? '' };
}
