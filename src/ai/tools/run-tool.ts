/**
 * The agent's one way to run a tool call: the name looked up among the
 * agent's tools, the arguments parsed and validated by the tool's schema,
 * errors turned into actionable messages the model can use, failures
 * classified for the retry caps, and every output held under the size
 * budget and fenced as untrusted data before the model sees it.
 */
import type { Logger } from '../../logger.ts';
import { boundResult } from './bound-result.ts';
import { BadArgumentsError, toolFailure } from './tool-errors.ts';
import type { Tool, ToolContext } from './tool-types.ts';

export interface ToolOutcome {
  input: unknown;
  /** Exactly what the model is sent. */
  output: string;
  /** The kind of failure, for the retry caps; null on success. */
  failure: 'bad_arguments' | 'unknown_tool' | 'sql_error' | 'tool_error' | null;
}

export interface ToolRun {
  tools: readonly Tool[];
  /** The most characters one fenced output may have (SLUICE_AI_TOOL_MAX_CHARS). */
  maxChars: number;
  log: Logger;
}

const SQL_CODES = new Set(['SQL_ERROR', 'READ_ONLY_VIOLATION', 'QUERY_TIMEOUT', 'VALIDATION_ERROR', 'SEMANTIC_VALIDATION_ERROR']);

export function fence(payload: unknown): string {
  // The closing tag cannot be forged from inside: JSON escapes '<' in every string.
  const json = JSON.stringify(payload).replaceAll('<', '\\u003c');
  return `<tool_output untrusted="true">${json}</tool_output>`;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    throw new BadArgumentsError('The arguments are not valid JSON; send one JSON object matching the tool\u2019s schema.');
  }
}

export async function runTool(name: string, rawArguments: string, ctx: ToolContext, run: ToolRun): Promise<ToolOutcome> {
  const tool = run.tools.find((t) => t.name === name);
  if (tool === undefined) {
    const message = `There is no tool "${name}". Tools: ${run.tools.map((t) => t.name).join(', ')}.`;
    return { input: rawArguments, output: fence({ error: { code: 'UNKNOWN_TOOL', message } }), failure: 'unknown_tool' };
  }
  let input: unknown = rawArguments;
  try {
    input = parseJson(rawArguments);
    const result = await tool.call(input, ctx);
    return { input, output: fence(boundResult(result, tool.list, run.maxChars, (r) => fence(r).length)), failure: null };
  } catch (error) {
    const failure = toolFailure(name, error, run.log);
    const kind = failure.code === 'BAD_ARGUMENTS' ? 'bad_arguments' : SQL_CODES.has(failure.code) ? 'sql_error' : 'tool_error';
    return { input, output: fence({ error: failure }), failure: kind };
  }
}
