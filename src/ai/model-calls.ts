/**
 * Every call to the model server, told to whoever counts them (metrics):
 * whether it answered, and the tokens the answer says it used. It sits in
 * the SDK's fetch, so chat, streamed chat and each agent step are counted
 * alike, where they leave the process. A streamed answer is counted when it
 * starts; its tokens are known only to servers that report them in JSON
 * answers.
 */
import type { ModelCall } from '../metrics/sluice-metrics.ts';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export type ModelCallWatcher = (call: ModelCall) => void;

async function tokensOf(response: Response): Promise<{ promptTokens: number; completionTokens: number }> {
  const none = { promptTokens: 0, completionTokens: 0 };
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) return none;
  try {
    const usage = ((await response.clone().json()) as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null)?.usage;
    const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
    return { promptTokens: count(usage?.prompt_tokens), completionTokens: count(usage?.completion_tokens) };
  } catch {
    // Not JSON after all: the SDK reports that to the caller; here it used no tokens.
    return none;
  }
}

/** The SDK's fetch, watched. The global fetch is looked up per call (a test may replace it). */
export function watchedFetch(watch: ModelCallWatcher): Fetch {
  return async (input, init) => {
    let response: Response;
    try {
      response = await globalThis.fetch(input, init);
    } catch (error) {
      watch({ outcome: 'error', promptTokens: 0, completionTokens: 0 });
      throw error;
    }
    if (!response.ok) watch({ outcome: 'error', promptTokens: 0, completionTokens: 0 });
    else watch({ outcome: 'ok', ...(await tokensOf(response)) });
    return response;
  };
}
