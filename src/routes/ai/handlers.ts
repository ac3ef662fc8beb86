/** /api/ai: chat, streamed chat and the read-only agent (analyst role and up). */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { runAgent, type AgentDeps } from '../../ai/agent.ts';
import { chat, chatStream } from '../../ai/chat.ts';
import { requireLlm, type Llm } from '../../ai/llm.ts';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import { toSluiceError } from '../../errors.ts';
import { errorBody, errorResponses } from '../common/envelope.ts';
import { SCHEMA_FAILURES, STORE_FAILURES } from '../common/failures.ts';
import { tagged } from '../common/tags.ts';
import { AgentRequest, AgentResponse, ChatRequest, ChatResponse } from './schemas.ts';

/** The model, and the schema of the datasource it is shown (which may still be starting). */
const AI_FAILURES = ['AI_NOT_CONFIGURED', 'AI_UPSTREAM_ERROR', ...SCHEMA_FAILURES] as const;
/** The agent also runs queries and reads artifacts; their failures reach the model, but the store's can end the request. */
const AGENT_FAILURES = [...AI_FAILURES, ...STORE_FAILURES] as const;

const chatRoute = createRoute({
  operationId: 'chat',
  method: 'post',
  path: '/api/ai/chat',
  tags: tagged('AI'),
  summary: 'Chat about SQL for a datasource (stateless; never runs SQL)',
  request: { body: { required: true, content: { 'application/json': { schema: ChatRequest } } } },
  responses: { 200: { description: 'The reply, its SQL blocks labelled, and the schema the model saw.', content: { 'application/json': { schema: ChatResponse } } }, ...errorResponses(...AI_FAILURES) },
});

const streamRoute = createRoute({
  operationId: 'chatStream',
  method: 'post',
  path: '/api/ai/chat/stream',
  tags: tagged('AI'),
  summary: 'The same chat as server-sent events: delta events, then one done event with the full body (or an error event)',
  request: { body: { required: true, content: { 'application/json': { schema: ChatRequest } } } },
  responses: { 200: { description: 'An event stream.', content: { 'text/event-stream': { schema: ChatResponse } } }, ...errorResponses(...AI_FAILURES) },
});

const agentRoute = createRoute({
  operationId: 'runAgent',
  method: 'post',
  path: '/api/ai/agent',
  tags: tagged('AI'),
  summary: 'Answer a question with a read-only agent whose large results live in artifacts',
  request: { body: { required: true, content: { 'application/json': { schema: AgentRequest } } } },
  responses: { 200: { description: 'The answer and the full transcript.', content: { 'application/json': { schema: AgentResponse } } }, ...errorResponses(...AGENT_FAILURES) },
});

export function registerAiRoutes(app: OpenAPIHono<AppEnv>, llm: Llm | null, deps: Omit<AgentDeps, 'llm'>): void {
  app.openapi(chatRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const model = requireLlm(llm);
    return c.json(await chat(model, deps.registry, principal, c.req.valid('json'), c.req.raw.signal), 200);
  });

  app.openapi(streamRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const model = requireLlm(llm);
    const body = c.req.valid('json');
    // Errors before the first byte (no datasource, no key) still answer with the envelope and a status.
    deps.registry.get(principal, body.datasource ?? 'default');
    const upstream = new AbortController();
    return streamSSE(c, async (stream) => {
      // A client that goes away stops the model too.
      stream.onAbort(() => upstream.abort());
      try {
        for await (const event of chatStream(model, deps.registry, principal, body, upstream.signal)) {
          if (event.type === 'delta') await stream.writeSSE({ event: 'delta', data: JSON.stringify({ text: event.text }) });
          else await stream.writeSSE({ event: 'done', data: JSON.stringify(event.body) });
        }
      } catch (error) {
        if (upstream.signal.aborted) return;
        const failure = toSluiceError(error, 'The chat failed unexpectedly.');
        if (failure.code === 'INTERNAL') deps.log.error('chat stream failed:', failure.cause ?? error);
        await stream.writeSSE({ event: 'error', data: JSON.stringify(errorBody(failure)) });
      }
    });
  });

  app.openapi(agentRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const model = requireLlm(llm);
    return c.json(await runAgent({ ...deps, llm: model }, principal, c.req.valid('json')), 200);
  });
}
