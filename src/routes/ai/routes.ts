/** Route definitions of /api/ai: chat, streamed chat and the read-only agent. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { SCHEMA_FAILURES, STORE_FAILURES } from '../common/failures.ts';
import { tagged } from '../common/tags.ts';
import { AgentRequest, AgentResponse, ChatRequest, ChatResponse } from './schemas.ts';

/** The model, and the schema of the datasource it is shown (which may still be starting). */
const AI_FAILURES = ['AI_NOT_CONFIGURED', 'AI_UPSTREAM_ERROR', ...SCHEMA_FAILURES] as const;
/** The agent also runs queries and reads artifacts; their failures reach the model, but the store's can end the request. */
const AGENT_FAILURES = [...AI_FAILURES, ...STORE_FAILURES] as const;

export const chatRoute = createRoute({
  operationId: 'chat',
  method: 'post',
  path: '/api/ai/chat',
  tags: tagged('AI'),
  summary: 'Chat about SQL for a datasource (stateless; never runs SQL)',
  request: { body: { required: true, content: { 'application/json': { schema: ChatRequest } } } },
  responses: { 200: jsonResponse(ChatResponse, 'The reply, its SQL blocks labelled, and the schema the model saw.'), ...errorResponses(...AI_FAILURES) },
});

export const streamRoute = createRoute({
  operationId: 'chatStream',
  method: 'post',
  path: '/api/ai/chat/stream',
  tags: tagged('AI'),
  summary: 'The same chat as server-sent events: delta events, then one done event with the full body (or an error event)',
  request: { body: { required: true, content: { 'application/json': { schema: ChatRequest } } } },
  responses: { 200: { description: 'An event stream.', content: { 'text/event-stream': { schema: ChatResponse } } }, ...errorResponses(...AI_FAILURES) },
});

export const agentRoute = createRoute({
  operationId: 'runAgent',
  method: 'post',
  path: '/api/ai/agent',
  tags: tagged('AI'),
  summary: 'Answer a question with a read-only agent whose large results live in artifacts',
  request: { body: { required: true, content: { 'application/json': { schema: AgentRequest } } } },
  responses: { 200: jsonResponse(AgentResponse, 'The answer and the full transcript.'), ...errorResponses(...AGENT_FAILURES) },
});
