/**
 * The language model behind chat and the agent: any OpenAI-compatible server
 * (OpenAI, a local llama.cpp or Ollama server) through the official SDK.
 * Without a key the AI routes answer AI_NOT_CONFIGURED and say how to set
 * one; an upstream failure becomes AI_UPSTREAM_ERROR with the upstream
 * status, never a crash. The key is never logged or returned.
 */
import OpenAI from 'openai';
import type { Config } from '../config.ts';
import { SluiceError, toSluiceError } from '../errors.ts';
import { watchedFetch, type ModelCallWatcher } from './model-calls.ts';

export interface Llm {
  client: OpenAI;
  model: string;
}

/** `watch` hears of every call to the model server (for metrics). */
export function createLlm(config: Config, watch?: ModelCallWatcher): Llm | null {
  if (config.openai.apiKey === undefined) return null;
  return {
    client: new OpenAI({
      apiKey: config.openai.apiKey,
      ...(config.openai.baseUrl ? { baseURL: config.openai.baseUrl } : {}),
      // The agent has its own deadline and retry caps; the SDK's silent retries would blur both.
      maxRetries: 0,
      timeout: config.aiDeadlineMs,
      ...(watch ? { fetch: watchedFetch(watch) } : {}),
    }),
    model: config.openai.model,
  };
}

export function requireLlm(llm: Llm | null): Llm {
  if (llm === null) {
    throw new SluiceError(
      'AI_NOT_CONFIGURED',
      'AI is not configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a server other than OpenAI, SLUICE_AI_MODEL for the model) and restart Sluice.',
    );
  }
  return llm;
}

/**
 * The SDK wraps a request that fails, but not a connection lost while a
 * streamed answer is read (fetch's TypeError, its cause a socket's code) nor
 * an answer that is not JSON (a SyntaxError): both are the model server's doing.
 */
function answerBrokeOff(error: unknown): boolean {
  if (error instanceof SyntaxError) return true;
  const cause = (error as { cause?: { code?: unknown } | null } | null)?.cause;
  return error instanceof TypeError && typeof cause?.code === 'string';
}

/** Turns what calling the model threw into the contract's error: the model server's failures here, the rest the common way. */
export function upstreamError(error: unknown): SluiceError {
  if (error instanceof SluiceError) return error;
  if (error instanceof OpenAI.APIUserAbortError) return new SluiceError('AI_UPSTREAM_ERROR', 'The request to the model was aborted.');
  if (error instanceof OpenAI.APIError) {
    const status = error.status;
    return new SluiceError('AI_UPSTREAM_ERROR', `The model server answered ${status ?? 'with an error'}${error.message ? `: ${error.message.slice(0, 300)}` : ''}.`, {
      upstreamStatus: status ?? null,
    });
  }
  if (answerBrokeOff(error)) {
    const mapped = new SluiceError('AI_UPSTREAM_ERROR', 'The model server\u2019s answer broke off or could not be read.', { upstreamStatus: null });
    mapped.cause = error;
    return mapped;
  }
  return toSluiceError(error, 'The request to the model failed unexpectedly.');
}
