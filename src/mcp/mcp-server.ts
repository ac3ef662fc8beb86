/**
 * Sluice as an MCP server (Streamable HTTP, stateless: one server and one
 * transport per request). The tools are the agent's own executors, run with
 * the caller's token, roles and datasources; each declares an output schema,
 * returns structuredContent, is marked read-only, and links the artifact it
 * produced as sluice://artifacts/{id}, which resources/read serves as one
 * bounded page. No result exceeds the configured size.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { hasRole, type Principal } from '../auth/principals.ts';
import { readArtifactPage } from '../artifacts/read-page.ts';
import { SluiceError } from '../errors.ts';
import { aggregateArtifactTool, readArtifactTool, runSelectTool } from '../ai/tools/query-tools.ts';
import { describeTableTool, listTablesTool } from '../ai/tools/schema-tools.ts';
import { findFieldsTool, generateVisualizationTool, listExploresTool, runQueryTool } from '../ai/tools/semantic-tools.ts';
import type { AgentTool, ToolContext } from '../ai/tools/tool-types.ts';
import type { AgentDeps } from '../ai/agent.ts';
import { VERSION } from '../version.ts';
import { bounded } from './bounded-result.ts';

export type McpDeps = Omit<AgentDeps, 'llm' | 'maxIters' | 'deadlineMs'> & { maxChars: number; deadlineMs: number };

const ARTIFACT_URI = /^sluice:\/\/artifacts\/(art_[A-Za-z0-9]+)$/;
const loose = z.object({}).passthrough();
const datasourceArg = { datasource: z.string().optional().describe('Datasource id; default "default".') };

interface ToolSpec {
  tool: AgentTool;
  role: 'reader' | 'analyst';
  input: z.ZodRawShape;
  output: z.ZodRawShape;
}

const SPECS: ToolSpec[] = [
  { tool: listTablesTool, role: 'reader', input: { ...datasourceArg, schema: z.string().optional(), search: z.string().optional() }, output: { tables: z.array(loose), total: z.number(), complete: z.boolean() } },
  { tool: describeTableTool, role: 'reader', input: { ...datasourceArg, table: z.string() }, output: { schema: z.string(), name: z.string(), columns: z.array(loose) } },
  { tool: runSelectTool, role: 'reader', input: { ...datasourceArg, sql: z.string(), materialize: z.boolean().optional() }, output: { columns: z.array(loose), rows: z.array(z.array(z.unknown())), completeness: loose, artifact: loose.nullable() } },
  {
    tool: readArtifactTool,
    role: 'reader',
    input: { artifact_id: z.string(), cursor: z.string().optional(), limit: z.number().int().min(1).max(50).optional(), columns: z.array(z.string()).optional(), filters: z.array(loose).optional(), sort: z.array(loose).optional() },
    output: { columns: z.array(loose), rows: z.array(z.array(z.unknown())), nextCursor: z.string().nullable() },
  },
  {
    tool: aggregateArtifactTool,
    role: 'reader',
    input: { artifact_id: z.string(), groupBy: z.array(z.string()).optional(), metrics: z.array(loose), filters: z.array(loose).optional(), sort: z.array(loose).optional(), limit: z.number().int().min(1).max(50).optional() },
    output: { columns: z.array(loose), rows: z.array(z.array(z.unknown())), truncated: z.boolean() },
  },
];

const SEMANTIC_SPECS: ToolSpec[] = [
  { tool: listExploresTool, role: 'analyst', input: {}, output: { explores: z.array(loose) } },
  { tool: findFieldsTool, role: 'analyst', input: { query: z.string(), explore: z.string().optional() }, output: { fields: z.array(loose) } },
  { tool: runQueryTool, role: 'analyst', input: { intent: loose }, output: { fields: z.array(loose), rows: z.array(z.array(z.unknown())), completeness: loose } },
  { tool: generateVisualizationTool, role: 'analyst', input: { intent: loose, chart: loose, title: z.string().optional() }, output: { id: z.string(), render: z.string() } },
];

function artifactOf(result: Record<string, unknown>): string | null {
  const artifact = result.artifact as { decision?: string; id?: string } | null | undefined;
  return artifact?.decision === 'CREATED' && artifact.id ? artifact.id : null;
}

export function createMcpServer(deps: McpDeps, principal: Principal): McpServer {
  const server = new McpServer({ name: 'sluice', version: VERSION });
  const context = (datasource: string | undefined): ToolContext => ({
    principal,
    datasource: deps.registry.get(principal, datasource ?? 'default'),
    sessionId: 'mcp',
    queries: deps.queries,
    store: deps.store,
    cursors: deps.cursors,
    deadline: Date.now() + deps.deadlineMs,
    artifacts: [],
    semantic: deps.semantic,
    visualizations: deps.visualizations,
    // Each MCP call stands alone (the client keeps the conversation), so there is nothing to have discovered.
    discoveredFields: null,
  });

  server.registerTool(
    'list_datasources',
    { description: 'The datasources this token may use.', inputSchema: {}, outputSchema: { datasources: z.array(loose) }, annotations: { readOnlyHint: true } },
    async () => {
      const datasources = deps.registry.visibleTo(principal).map((d) => ({ id: d.id, description: d.description }));
      return { content: [{ type: 'text', text: JSON.stringify({ datasources }) }], structuredContent: { datasources } };
    },
  );

  const specs = [...SPECS, ...(deps.semantic !== null && deps.semantic.catalog.size > 0 ? SEMANTIC_SPECS : [])];
  for (const spec of specs) {
    if (!hasRole(principal, spec.role)) continue;
    server.registerTool(
      spec.tool.name,
      { description: spec.tool.description, inputSchema: spec.input, outputSchema: spec.output, annotations: { readOnlyHint: true, openWorldHint: false } },
      async (args: Record<string, unknown>) => {
        try {
          const { datasource, ...input } = args as { datasource?: string };
          const raw = await spec.tool.run(input, context(datasource));
          const wrapped = (Array.isArray(raw) ? { explores: raw } : raw) as Record<string, unknown>;
          const result = bounded(wrapped, deps.maxChars);
          const artifactId = artifactOf(result);
          const content: ({ type: 'text'; text: string } | { type: 'resource_link'; uri: string; name: string; mimeType: string; description: string })[] = [{ type: 'text', text: JSON.stringify(result) }];
          if (artifactId !== null) {
            content.push({ type: 'resource_link', uri: `sluice://artifacts/${artifactId}`, name: artifactId, mimeType: 'application/json', description: 'The complete result; resources/read returns its first page.' });
          }
          return { content, structuredContent: result };
        } catch (error) {
          const failure = error instanceof SluiceError ? error : new SluiceError('VALIDATION_ERROR', (error as Error).message);
          return { isError: true, content: [{ type: 'text', text: JSON.stringify({ errorCode: failure.code, message: failure.message }) }] };
        }
      },
    );
  }

  server.registerResource(
    'artifact',
    new ResourceTemplate('sluice://artifacts/{id}', { list: undefined }),
    { description: 'A stored query result: the first page of rows (at most 50).', mimeType: 'application/json' },
    async (uri) => {
      const id = ARTIFACT_URI.exec(uri.href)?.[1];
      if (id === undefined) throw new SluiceError('NOT_FOUND', 'Not a Sluice artifact URI.');
      const page = await readArtifactPage(deps.store, deps.cursors, principal.id, id, { limit: 50 });
      const result = bounded({ columns: page.columns, rows: page.rows, nextCursor: page.nextCursor }, deps.maxChars);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result) }] };
    },
  );
  return server;
}
