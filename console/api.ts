/**
 * The console's one way to the API: the generated client (one typed call per
 * operationId) bound to the signed-in token, and `unwrap`, which turns the
 * error envelope into an ApiError carrying the API's own summary sentence, so
 * every screen shows what the API said rather than a status code.
 */
import { createSluiceClient, type components, type SluiceClient } from '../openapi/client/index.ts';

export type Schemas = components['schemas'];
export type QueryData = Schemas['QueryData'];
export type Column = Schemas['Column'];
export type Artifact = Schemas['Artifact'];
export type Completeness = Schemas['Completeness'];
export type ArtifactDecision = Schemas['ArtifactDecision'];
export type Explore = Schemas['ExploreListEnvelope']['data']['explores'][number];

export class ApiError extends Error {
  readonly code: string;
  /** The envelope's error.message when it adds to the summary. */
  readonly detail: string | null;
  constructor(code: string, summary: string, detail: string | null) {
    super(summary);
    this.code = code;
    this.detail = detail;
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

function envelopeError(error: unknown, response: Response): ApiError {
  if (typeof error === 'object' && error !== null && 'summary' in error) {
    const envelope = error as { summary: string; errorCode?: string; error?: { message?: string } };
    const message = envelope.error?.message ?? null;
    return new ApiError(envelope.errorCode ?? 'ERROR', envelope.summary, message !== null && message !== envelope.summary ? message : null);
  }
  // Not an envelope (a proxy in between, or a body that is not JSON): say what came back.
  return new ApiError('HTTP_' + response.status, `The server answered HTTP ${response.status} ${response.statusText}`.trim() + '.', null);
}

/** The answer's data, or the API's error as an ApiError. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError('NETWORK', `The server could not be reached: ${error instanceof Error ? error.message : String(error)}.`, null);
  }
  if (answer.error !== undefined || answer.data === undefined) throw envelopeError(answer.error, answer.response);
  return answer.data;
}

export function connect(token: string): SluiceClient {
  return createSluiceClient(window.location.origin, token);
}

export type { SluiceClient };
