/**
 * The one registry of tools. Each surface (the agent, MCP) takes the tools
 * offered to it, that the caller's role allows, and, for the semantic
 * tools, only while a semantic model with explores is loaded. Every schema
 * a surface shows is derived here from the tool's own zod definition: the
 * result schema (with the size-budget note), the MCP argument schema (with
 * `datasource` where the tool reads one) and the model's function schema.
 */
import type OpenAI from 'openai';
import { z } from 'zod';
import { hasRole, type Principal } from '../../auth/principals.ts';
import type { SemanticService } from '../../semantic/semantic-service.ts';
import { aggregateArtifactTool, readArtifactTool } from './artifact-tools.ts';
import { TruncatedForSize } from './bound-result.ts';
import { runSelectTool } from './run-select-tool.ts';
import { describeTableTool, listDatasourcesTool, listTablesTool } from './schema-tools.ts';
import { findFieldsTool, generateVisualizationTool, listExploresTool, runQueryTool } from './semantic-tools.ts';
import type { Surface, Tool } from './tool-types.ts';

export const TOOLS: readonly Tool[] = [
  listDatasourcesTool,
  listTablesTool,
  describeTableTool,
  runSelectTool,
  readArtifactTool,
  aggregateArtifactTool,
  listExploresTool,
  findFieldsTool,
  runQueryTool,
  generateVisualizationTool,
];

/** Whether the semantic tools are offered: a model with at least one explore is loaded. */
export function semanticLoaded(semantic: SemanticService | null): boolean {
  return semantic !== null && semantic.catalog.size > 0;
}

export function toolsFor(surface: Surface, principal: Principal, semantic: boolean): Tool[] {
  return TOOLS.filter((t) => t.surfaces.includes(surface) && hasRole(principal, t.role) && (semantic || !t.needsSemantic));
}

/** What a call of the tool returns: its output, and the size-budget note when it has a list to shorten. */
export function resultSchema(tool: Tool): z.ZodObject {
  return tool.list === null ? tool.output : tool.output.extend({ truncatedForSize: TruncatedForSize.optional() });
}

const DatasourceArgument = z.string().min(1).max(64).optional().describe('Datasource id (list_datasources); default "default".');

/** The arguments an MCP client sends: the tool's own, plus `datasource` where the tool reads one. */
export function mcpInputSchema(tool: Tool): z.ZodObject {
  return tool.usesDatasource ? tool.input.extend({ datasource: DatasourceArgument }) : tool.input;
}

/** The tool as the model's function: its zod arguments as JSON Schema (as sent, so defaults are optional). */
export function functionTool(tool: Tool): OpenAI.Chat.ChatCompletionFunctionTool {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(tool.input, { io: 'input', target: 'draft-7' });
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
}
