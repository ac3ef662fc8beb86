/** Handlers of /api/ai: chat, streamed chat and the read-only agent (analyst role and up). */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { runAgent, type AgentDeps } from '../../ai/agent.ts';
import { chat, chatStream } from '../../ai/chat.ts';
import { requireLlm, type Llm } from '../../ai/llm.ts';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import { toSluiceError } from '../../errors.ts';
import { errorBody } from '../common/envelope.ts';
import { agentRoute, chatRoute, streamRoute } from './routes.ts';

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
