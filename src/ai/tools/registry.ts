/**
 * The agent's tool set and the one place tool calls are run: arguments
 * parsed and checked, errors turned into actionable messages the model can
 * use, failures classified for the retry caps, and every output fenced as
 * untrusted data before the model sees it.
 */
import { SluiceError } from '../../errors.ts';
import { readArtifactTool, runSelectTool } from './query-tools.ts';
import { describeTableTool, listTablesTool } from './schema-tools.ts';
import { findFieldsTool, generateVisualizationTool, listExploresTool, runQueryTool } from './semantic-tools.ts';
import { ToolInputError, type AgentTool, type ToolContext } from './tool-types.ts';

const CORE_TOOLS: AgentTool[] = [listTablesTool, describeTableTool, runSelectTool, readArtifactTool];
const SEMANTIC_TOOLS: AgentTool[] = [listExploresTool, findFieldsTool, runQueryTool, generateVisualizationTool];

/** The core tools, and the semantic ones when a model with explores is loaded. */
export function toolsFor(ctx: ToolContext): AgentTool[] {
  return ctx.semantic !== null && ctx.semantic.catalog.size > 0 ? [...CORE_TOOLS, ...SEMANTIC_TOOLS] : CORE_TOOLS;
}

export interface ToolOutcome {
  input: unknown;
  /** Exactly what the model is sent. */
  output: string;
  /** The kind of failure, for the retry caps; null on success. */
  failure: 'bad_arguments' | 'unknown_tool' | 'sql_error' | 'tool_error' | null;
}

const SQL_CODES = new Set(['SQL_ERROR', 'READ_ONLY_VIOLATION', 'QUERY_TIMEOUT', 'VALIDATION_ERROR', 'SEMANTIC_VALIDATION_ERROR']);

export function fence(payload: unknown): string {
  // The closing tag cannot be forged from inside: JSON escapes '<' in every string.
  const json = JSON.stringify(payload).replaceAll('<', '\\u003c');
  return `<tool_output untrusted="true">${json}</tool_output>`;
}

export async function runTool(name: string, rawArguments: string, ctx: ToolContext): Promise<ToolOutcome> {
  const tools = toolsFor(ctx);
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) {
    return { input: rawArguments, output: fence({ error: { code: 'UNKNOWN_TOOL', message: `There is no tool "${name}". Tools: ${tools.map((t) => t.name).join(', ')}.` } }), failure: 'unknown_tool' };
  }
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(rawArguments || '{}');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    input = parsed as Record<string, unknown>;
  } catch {
    return { input: rawArguments, output: fence({ error: { code: 'BAD_ARGUMENTS', message: `The arguments for ${name} are not a JSON object; send them as JSON matching the tool's schema.` } }), failure: 'bad_arguments' };
  }
  try {
    return { input, output: fence(await tool.run(input, ctx)), failure: null };
  } catch (error) {
    if (error instanceof ToolInputError) return { input, output: fence({ error: { code: 'BAD_ARGUMENTS', message: error.message } }), failure: 'bad_arguments' };
    const failure = error instanceof SluiceError ? error : new SluiceError('INTERNAL', 'The tool failed unexpectedly.');
    if (failure.code === 'INTERNAL') console.error(`agent tool ${name} failed:`, error);
    const details = failure.details === undefined ? {} : { details: failure.details };
    return { input, output: fence({ error: { code: failure.code, message: failure.message, ...details } }), failure: SQL_CODES.has(failure.code) ? 'sql_error' : 'tool_error' };
  }
}
