/**
 * The MCP server for one caller (stateless: one server and one transport per
 * request). Its tools are the registry's (src/ai/tools/registry.ts) offered
 * to MCP and allowed by the caller's role, run with the caller's token,
 * roles and datasources; each declares the output schema derived from the
 * tool's own definition, returns structuredContent conforming to it, is
 * marked read-only, and links the artifact it produced as
 * sluice://artifacts/{id}, which resources/read serves as one bounded page.
 * No result exceeds SLUICE_MCP_MAX_CHARS.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principals.ts';
import type { AgentDeps } from '../ai/agent.ts';
import { boundResult } from '../ai/tools/bound-result.ts';
import { mcpInputSchema, resultSchema, semanticLoaded, toolsFor } from '../ai/tools/registry.ts';
import { toolFailure } from '../ai/tools/tool-errors.ts';
import type { Tool, ToolContext } from '../ai/tools/tool-types.ts';
import { VERSION } from '../version.ts';
import { registerArtifactResource } from './artifact-resource.ts';

export type McpDeps = Omit<AgentDeps, 'llm' | 'maxIters' | 'toolMaxChars'> & { maxChars: number };

function artifactOf(result: Record<string, unknown>): string | null {
  const artifact = result.artifact as { decision?: string; id?: string } | null | undefined;
  return artifact?.decision === 'CREATED' && artifact.id ? artifact.id : null;
}

async function callTool(deps: McpDeps, tool: Tool, args: Record<string, unknown>, context: (datasource: string | undefined) => ToolContext): Promise<CallToolResult> {
  try {
    const { datasource, ...input } = args as { datasource?: string };
    const result = boundResult(await tool.call(input, context(datasource)), tool.list, deps.maxChars, (r) => JSON.stringify(r).length);
    const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(result) }];
    const artifactId = artifactOf(result);
    if (artifactId !== null) {
      content.push({ type: 'resource_link', uri: `sluice://artifacts/${artifactId}`, name: artifactId, mimeType: 'application/json', description: 'The complete result; resources/read returns its first page.' });
    }
    return { content, structuredContent: result };
  } catch (error) {
    const failure = toolFailure(tool.name, error, deps.log);
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ errorCode: failure.code, message: failure.message }) }] };
  }
}

export function createMcpServer(deps: McpDeps, principal: Principal): McpServer {
  const server = new McpServer({ name: 'sluice', version: VERSION });
  const context = (datasource: string | undefined): ToolContext => ({
    principal,
    // Resolved only by tools that read a datasource, so artifact tools work for tokens without "default".
    get datasource() {
      return deps.registry.get(principal, datasource ?? 'default');
    },
    registry: deps.registry,
    sessionId: 'mcp',
    queries: deps.queries,
    store: deps.store,
    cursors: deps.cursors,
    deadline: Date.now() + deps.deadlineMs,
    artifacts: [],
    artifactScope: null,
    semantic: deps.semantic,
    visualizations: deps.visualizations,
    // Each MCP call stands alone (the client keeps the conversation), so there is nothing to have discovered.
    discoveredFields: null,
  });

  for (const tool of toolsFor('mcp', principal, semanticLoaded(deps.semantic))) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: mcpInputSchema(tool), outputSchema: resultSchema(tool), annotations: { readOnlyHint: true, openWorldHint: false } },
      (args: Record<string, unknown>) => callTool(deps, tool, args, context),
    );
  }
  registerArtifactResource(server, deps, principal);
  return server;
}
