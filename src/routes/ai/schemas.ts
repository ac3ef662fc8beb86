/** Request and response schemas of /api/ai: the documented AI Chat / AI Agent bodies (not enveloped). */
import { z } from '@hono/zod-openapi';
import { SessionId } from '../../contract/results.ts';
import { AGENT_STOPS, CHAT_ROLES, SQL_BLOCK_KINDS, TRANSCRIPT_STEP_KINDS } from '../../vocabulary.ts';

export const ChatRequest = z
  .object({
    messages: z
      .array(z.object({ role: z.enum(CHAT_ROLES), content: z.string().max(100_000) }).strict())
      .min(1)
      .max(100),
    flavor: z.string().max(64).optional().openapi({ description: 'SQL dialect to write in; default the datasource\u2019s own (PostgreSQL, MariaDB, MySQL, SQLite or DuckDB).' }),
    datasource: z.string().min(1).max(64).optional(),
  })
  .strict()
  .openapi('ChatRequest');

export const SqlBlock = z.object({ sql: z.string(), kind: z.enum(SQL_BLOCK_KINDS) }).openapi('SqlBlock');

export const ChatResponse = z
  .object({
    message: z.string().openapi({ description: 'The reply\u2019s text, as in the AI Chat API.' }),
    blocks: z.array(SqlBlock),
    schema: z.string().openapi({ description: 'Exactly the schema text the model was shown.' }),
    model: z.string().openapi({ description: 'The model the upstream says it used (e.g. gpt-4o-mini-2024-07-18); the configured SLUICE_AI_MODEL only when the upstream does not say.' }),
  })
  .openapi('ChatResponse');

export const AgentRequest = z
  .object({
    prompt: z.string().min(1).max(20_000),
    max_iters: z.number().int().min(1).max(100).optional().openapi({ description: 'Model calls allowed (default 6, or the server\u2019s cap when lower). More than the server\u2019s cap (SLUICE_AI_MAX_ITERS) is refused with VALIDATION_ERROR naming the cap.' }),
    datasource: z.string().min(1).max(64).optional(),
    sessionId: SessionId.optional().openapi({ description: 'Session that keeps the artifacts this run creates.' }),
  })
  .strict()
  .openapi('AgentRequest');

export const AgentResponse = z
  .object({
    answer: z.string(),
    iterations: z.number().int().openapi({ description: 'Model calls made.' }),
    stoppedBy: z.enum(AGENT_STOPS),
    transcript: z.array(
      z.object({
        step: z.number().int(),
        kind: z.enum(TRANSCRIPT_STEP_KINDS),
        tool_name: z.string().optional(),
        tool_input: z.unknown().optional(),
        tool_output: z.string().optional().openapi({ description: 'Exactly what the model was sent.' }),
        role: z.string().optional(),
        content: z.string().nullable().optional(),
        tool_calls: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
        duration_ms: z.number().int(),
      }),
    ),
    artifacts: z.array(z.string()),
    usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
  })
  .openapi('AgentResponse');
