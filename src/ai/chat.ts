/**
 * Chat: stateless multi-turn help with SQL. The client sends the whole
 * history; the model is shown the datasource's bounded schema; SQL in the
 * reply is extracted and labelled, never executed. The streamed form yields
 * text as it is generated and the same body at the end.
 */
import type OpenAI from 'openai';
import type { Principal } from '../auth/principals.ts';
import type { DatasourceRegistry } from '../datasources/registry.ts';
import { toSluiceError } from '../errors.ts';
import { upstreamError, type Llm } from './llm.ts';
import { schemaContext } from './schema-context.ts';
import { extractSqlBlocks, type SqlBlock } from './sql-blocks.ts';
import type { ChatRole } from '../vocabulary.ts';

export interface ChatRequest {
  messages: { role: ChatRole; content: string }[];
  flavor?: string | undefined;
  datasource?: string | undefined;
}

export interface ChatBody {
  /** The reply's text (a string, as in the AI Chat API). */
  message: string;
  blocks: SqlBlock[];
  schema: string;
  /** The model the upstream says it used; the configured name only when it says nothing. */
  model: string;
}

function systemPrompt(schema: string, flavor: string): string {
  return [
    `You help people write ${flavor} SQL for the database described below.`,
    'Answer in plain words and put each SQL statement in a fenced ```sql block.',
    'You may suggest any SQL, including changes to data or schema when asked; nothing you write is executed here.',
    'Use only tables and columns from the schema; if something is missing from it, say so.',
    '',
    schema,
  ].join('\n');
}

async function prepare(registry: DatasourceRegistry, principal: Principal, request: ChatRequest) {
  const ds = registry.get(principal, request.datasource ?? 'default');
  const conversation = request.messages.map((m) => m.content).join('\n');
  let schema: string;
  try {
    schema = await schemaContext(ds, conversation);
  } catch (error) {
    throw toSluiceError(error);
  }
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: systemPrompt(schema, request.flavor ?? ds.driver.dialect.label) },
    ...request.messages.map((m) => ({ role: m.role, content: m.content }) as OpenAI.Chat.ChatCompletionMessageParam),
  ];
  const dialect = ds.driver.dialect;
  const blocksOf = (text: string) => extractSqlBlocks(text, (sql: string) => ds.driver.classify(sql), dialect.fenceTags);
  return { schema, messages, blocksOf };
}

export async function chat(llm: Llm, registry: DatasourceRegistry, principal: Principal, request: ChatRequest, signal?: AbortSignal): Promise<ChatBody> {
  const { schema, messages, blocksOf } = await prepare(registry, principal, request);
  let content: string;
  let model: string;
  try {
    const completion = await llm.client.chat.completions.create({ model: llm.model, messages }, signal ? { signal } : {});
    content = completion.choices[0]?.message?.content ?? '';
    model = servedModel(completion.model, llm.model);
  } catch (error) {
    throw upstreamError(error);
  }
  return { message: content, blocks: await blocksOf(content), schema, model };
}

export async function* chatStream(
  llm: Llm,
  registry: DatasourceRegistry,
  principal: Principal,
  request: ChatRequest,
  signal: AbortSignal,
): AsyncGenerator<{ type: 'delta'; text: string } | { type: 'done'; body: ChatBody }> {
  const { schema, messages, blocksOf } = await prepare(registry, principal, request);
  let content = '';
  let model = llm.model;
  try {
    const stream = await llm.client.chat.completions.create({ model: llm.model, messages, stream: true }, { signal });
    for await (const chunk of stream) {
      model = servedModel(chunk.model, model);
      const text = chunk.choices[0]?.delta?.content ?? '';
      if (text === '') continue;
      content += text;
      yield { type: 'delta', text };
    }
  } catch (error) {
    throw upstreamError(error);
  }
  yield { type: 'done', body: { message: content, blocks: await blocksOf(content), schema, model } };
}

/** The name the upstream gives the model that answered (a dated version of the one asked for), else `fallback`. */
function servedModel(said: unknown, fallback: string): string {
  return typeof said === 'string' && said.trim() !== '' ? said : fallback;
}
