/**
 * A scripted OpenAI-compatible chat-completions endpoint (msw). Each test
 * queues replies; every request body the server sends is recorded, so tests
 * assert what the model was shown, not only what the API returned.
 */
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

export const LLM_BASE = 'http://llm.test/v1';

/**
 * The model name a reply says it was made by: the one requested by default
 * (echoed, like a server with no versioned names), another name (as OpenAI
 * answers `gpt-4o-mini-2024-07-18` to `gpt-4o-mini`), or null to leave the
 * field out.
 */
export type ServedModel = string | null | undefined;

export type Reply =
  | { content: string; model?: ServedModel }
  | { toolCalls: { name: string; arguments: string }[]; content?: string }
  | { status: number }
  | { delayMs: number; content: string };

/** A reply computed from what the model was sent (e.g. to use an artifact id a tool returned). */
export type ScriptStep = Reply | ((body: any) => Reply);

export interface FakeLlm {
  requests: { body: any; aborted: () => boolean }[];
  script(...replies: ScriptStep[]): void;
  /** A streamed reply, sent as these text pieces with a pause between them, its chunks naming `model`. */
  streamPieces(pieces: string[], pauseMs?: number, model?: ServedModel): void;
  close(): void;
}

/** The `model` field of a completion or chunk, per ServedModel. */
function modelField(requested: unknown, served: ServedModel): { model?: unknown } {
  if (served === null) return {};
  return { model: served ?? requested };
}

export function startFakeLlm(): FakeLlm {
  const queue: ScriptStep[] = [];
  let stream: { pieces: string[]; pauseMs: number; model: ServedModel } | null = null;
  const requests: FakeLlm['requests'] = [];
  const server = setupServer(
    http.post(`${LLM_BASE}/chat/completions`, async ({ request }) => {
      const body = (await request.json()) as any;
      const entry = { body, aborted: () => request.signal.aborted };
      requests.push(entry);
      if (body.stream) {
        const { pieces, pauseMs, model } = stream ?? { pieces: ['(no script)'], pauseMs: 0, model: undefined };
        const encoder = new TextEncoder();
        const readable = new ReadableStream({
          async start(controller) {
            for (const [i, piece] of pieces.entries()) {
              if (request.signal.aborted) break;
              const chunk = { id: 'c', object: 'chat.completion.chunk', created: 0, ...modelField(body.model, model), choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] };
              controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
              if (i < pieces.length - 1) await delay(pauseMs);
            }
            controller.enqueue(encoder.encode('data: [DONE]\n\n'));
            controller.close();
          },
        });
        return new HttpResponse(readable, { headers: { 'content-type': 'text/event-stream' } });
      }
      const step = queue.shift() ?? { content: '(script exhausted)' };
      const reply = typeof step === 'function' ? step(body) : step;
      if ('status' in reply) return HttpResponse.json({ error: { message: 'upstream broke', type: 'server_error' } }, { status: reply.status });
      if ('delayMs' in reply) await delay(reply.delayMs);
      const toolCalls = 'toolCalls' in reply ? reply.toolCalls.map((c, i) => ({ id: `call_${requests.length}_${i}`, type: 'function', function: c })) : undefined;
      return HttpResponse.json({
        id: 'cmpl',
        object: 'chat.completion',
        created: 0,
        ...modelField(body.model, 'model' in reply ? reply.model : undefined),
        choices: [{ index: 0, finish_reason: toolCalls ? 'tool_calls' : 'stop', message: { role: 'assistant', content: 'content' in reply ? (reply.content ?? null) : null, ...(toolCalls ? { tool_calls: toolCalls } : {}) } }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    }),
  );
  server.listen({ onUnhandledRequest: 'bypass' });
  return {
    requests,
    script: (...replies) => {
      queue.length = 0;
      queue.push(...replies);
      requests.length = 0;
    },
    streamPieces: (pieces, pauseMs = 0, model = undefined) => {
      stream = { pieces, pauseMs, model };
      requests.length = 0;
    },
    close: () => server.close(),
  };
}
