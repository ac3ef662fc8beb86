/**
 * The read-only agent: one request, several model calls, tools that can only
 * read. The model sees at most 50 rows; a full result is kept as an artifact
 * only when a tool call asks. Guardrails: an iteration cap (asking for more
 * than the server's maximum is refused, never silently lowered), one
 * deadline for the whole request, retry caps per kind of failure (after
 * which the model must answer with what it has), the caller's own
 * privileges, artifact reads limited to its own tool chain, every tool
 * result held under SLUICE_AI_TOOL_MAX_CHARS, and tool output fenced as
 * untrusted data. The transcript keeps
 * every step exactly as the model saw it.
 */
import type OpenAI from 'openai';
import type { Principal } from '../auth/principals.ts';
import type { CursorCodec } from '../artifacts/cursor.ts';
import type { ArtifactStore } from '../artifacts/types.ts';
import type { DatasourceRegistry } from '../datasources/registry.ts';
import type { Logger } from '../logger.ts';
import type { QueryService } from '../query/query-service.ts';
import { SluiceError } from '../errors.ts';
import { upstreamError, type Llm } from './llm.ts';
import { functionTool, semanticLoaded, toolsFor } from './tools/registry.ts';
import { runTool, type ToolRun } from './tools/run-tool.ts';
import type { ToolContext } from './tools/tool-types.ts';
import type { SemanticService } from '../semantic/semantic-service.ts';
import type { VisualizationStore } from '../semantic/visualization-store.ts';
import { agentSystemPrompt } from './agent-prompt.ts';
import type { AgentStop, TranscriptStepKind } from '../vocabulary.ts';

export interface AgentRequest {
  prompt: string;
  max_iters?: number | undefined;
  datasource?: string | undefined;
  sessionId?: string | undefined;
}

export interface TranscriptStep {
  step: number;
  kind: TranscriptStepKind;
  role?: 'assistant';
  content?: string | null;
  tool_calls?: { id: string; name: string }[];
  tool_name?: string;
  tool_input?: unknown;
  tool_output?: string;
  duration_ms: number;
}

export interface AgentBody {
  answer: string;
  iterations: number;
  stoppedBy: AgentStop;
  transcript: TranscriptStep[];
  artifacts: string[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export interface AgentDeps {
  llm: Llm;
  registry: DatasourceRegistry;
  queries: QueryService;
  store: ArtifactStore;
  cursors: CursorCodec;
  maxIters: number;
  deadlineMs: number;
  semantic: SemanticService | null;
  visualizations: VisualizationStore | null;
  /** The most characters one tool result may put in the model's context (SLUICE_AI_TOOL_MAX_CHARS). */
  toolMaxChars: number;
  log: Logger;
}

/** After this many failures of one kind the model gets no more tools and must answer. */
const RETRY_CAP = 3;
const DEFAULT_ITERS = 6;

/** The model calls a request may make: what it asks for, at most the server's cap (SLUICE_AI_MAX_ITERS). */
function itersOf(request: AgentRequest, cap: number): number {
  const asked = request.max_iters;
  if (asked === undefined) return Math.min(DEFAULT_ITERS, cap);
  if (asked > cap) {
    const message = `max_iters ${asked} is above this server's cap of ${cap} (SLUICE_AI_MAX_ITERS); ask for ${cap} or fewer.`;
    throw new SluiceError('VALIDATION_ERROR', message, { issues: [{ path: 'max_iters', message }], maxIters: cap });
  }
  return asked;
}

export async function runAgent(deps: AgentDeps, principal: Principal, request: AgentRequest): Promise<AgentBody> {
  const maxIters = itersOf(request, deps.maxIters);
  const datasource = deps.registry.get(principal, request.datasource ?? 'default');
  const started = Date.now();
  const deadline = started + deps.deadlineMs;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), deps.deadlineMs);
  const ctx: ToolContext = {
    principal,
    datasource,
    registry: deps.registry,
    sessionId: request.sessionId ?? 'default',
    queries: deps.queries,
    store: deps.store,
    cursors: deps.cursors,
    deadline,
    artifacts: [],
    // Only a session the request names is shared with the agent (see tools/artifact-scope.ts).
    artifactScope: { sharedSession: request.sessionId ?? null },
    semantic: deps.semantic,
    visualizations: deps.visualizations,
    discoveredFields: new Set(),
  };
  const semantic = semanticLoaded(deps.semantic);
  const tools = toolsFor('agent', principal, semantic);
  const toolRun: ToolRun = { tools, maxChars: deps.toolMaxChars, log: deps.log };
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: agentSystemPrompt(datasource.id, datasource.driver.dialect.label, semantic) },
    { role: 'user', content: request.prompt },
  ];
  const transcript: TranscriptStep[] = [];
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const failures = new Map<string, number>();
  let iterations = 0;
  let lastText = '';
  let mustAnswer = false;
  const finish = (answer: string, stoppedBy: AgentBody['stoppedBy']): AgentBody => ({ answer, iterations, stoppedBy, transcript, artifacts: ctx.artifacts, usage });
  try {
    while (iterations < maxIters) {
      if (Date.now() >= deadline) return finish(incomplete(lastText, 'the request reached its time limit'), 'timeout');
      const callStarted = Date.now();
      let completion: OpenAI.Chat.ChatCompletion;
      try {
        completion = await deps.llm.client.chat.completions.create(
          { model: deps.llm.model, messages, tools: tools.map(functionTool), tool_choice: mustAnswer ? 'none' : 'auto' },
          { signal: abort.signal },
        );
      } catch (error) {
        if (abort.signal.aborted) return finish(incomplete(lastText, 'the request reached its time limit'), 'timeout');
        throw upstreamError(error);
      }
      iterations++;
      usage.prompt_tokens += completion.usage?.prompt_tokens ?? 0;
      usage.completion_tokens += completion.usage?.completion_tokens ?? 0;
      usage.total_tokens += completion.usage?.total_tokens ?? 0;
      const message = completion.choices[0]?.message;
      const calls = (message?.tool_calls ?? []).filter((c) => c.type === 'function');
      lastText = message?.content ?? lastText;
      transcript.push({
        step: transcript.length + 1,
        kind: 'llm',
        role: 'assistant',
        content: message?.content ?? null,
        ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, name: c.function.name })) } : {}),
        duration_ms: Date.now() - callStarted,
      });
      if (calls.length === 0 || mustAnswer) return finish(message?.content ?? '', 'answer');
      messages.push({ role: 'assistant', content: message?.content ?? null, tool_calls: calls });
      for (const call of calls) {
        const toolStarted = Date.now();
        const outcome = await runTool(call.function.name, call.function.arguments, ctx, toolRun);
        if (outcome.failure !== null) failures.set(outcome.failure, (failures.get(outcome.failure) ?? 0) + 1);
        messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.output });
        transcript.push({ step: transcript.length + 1, kind: 'tool', tool_name: call.function.name, tool_input: outcome.input, tool_output: outcome.output, duration_ms: Date.now() - toolStarted });
      }
      const exhausted = [...failures.entries()].find(([, n]) => n >= RETRY_CAP);
      if (exhausted !== undefined && !mustAnswer) {
        mustAnswer = true;
        messages.push({
          role: 'system',
          content: `Tools failed ${exhausted[1]} times (${exhausted[0]}). Do not call tools again. Answer now with what you know, and say plainly what you could not find out and why.`,
        });
      }
    }
    return finish(incomplete(lastText, `it used all ${maxIters} allowed model calls`), 'max_iters');
  } finally {
    clearTimeout(timer);
  }
}

function incomplete(lastText: string, why: string): string {
  const note = `The agent stopped before a final answer because ${why}; what follows may be incomplete.`;
  return lastText ? `${note}\n\n${lastText}` : note;
}
