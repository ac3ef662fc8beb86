/**
 * What a tool is, written once for every surface that offers it: its name,
 * description, the least role that may call it, the surfaces (the agent,
 * MCP), zod schemas of its arguments and of its result, the list in the
 * result that shrinks when a result is over its size budget, and an executor
 * that runs with the caller's own privileges. No tool can write.
 */
import type { z } from 'zod';
import type { Principal } from '../../auth/principals.ts';
import type { CursorCodec } from '../../artifacts/cursor.ts';
import type { ArtifactStore } from '../../artifacts/types.ts';
import type { Datasource, DatasourceRegistry } from '../../datasources/registry.ts';
import type { QueryService } from '../../query/query-service.ts';
import type { SemanticService } from '../../semantic/semantic-service.ts';
import type { VisualizationStore } from '../../semantic/visualization-store.ts';
import type { Role } from '../../vocabulary.ts';
import { parseArguments } from './tool-errors.ts';

export const SURFACES = ['agent', 'mcp'] as const;
export type Surface = (typeof SURFACES)[number];

export interface ToolContext {
  principal: Principal;
  /** The datasource the tool reads (the agent's request's; an MCP call's `datasource` argument). */
  readonly datasource: Datasource;
  registry: DatasourceRegistry;
  sessionId: string;
  queries: QueryService;
  store: ArtifactStore;
  cursors: CursorCodec;
  /** Epoch ms by which the whole request must end. */
  deadline: number;
  /** Artifacts this request's tools created, in order. */
  artifacts: string[];
  /** Which artifacts the artifact tools may read (see artifact-scope.ts); null: any of the principal's. */
  artifactScope: { sharedSession: string | null } | null;
  semantic: SemanticService | null;
  visualizations: VisualizationStore | null;
  /** Field ids find_fields has shown in this conversation; run_query may use only these. Null: no such rule. */
  discoveredFields: Set<string> | null;
}

export interface ToolDefinition<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  description: string;
  // No tool is admin-only: admin adds workspace maintenance, and no tool maintains anything.
  role: Exclude<Role, 'admin'>;
  surfaces: readonly Surface[];
  /** Reads a datasource: an MCP call names it (`datasource`), the agent uses its request's. */
  usesDatasource: boolean;
  /** Offered only while a semantic model with explores is loaded. */
  needsSemantic: boolean;
  input: I;
  output: O;
  /** The array of the result that loses items from its end when the result is over its size budget. */
  list: (keyof z.output<O> & string) | null;
  run(input: z.output<I>, ctx: ToolContext): Promise<z.output<O>>;
}

/** A tool as the registry holds it: its types erased, its arguments validated by `call`. */
export interface Tool extends Omit<ToolDefinition<z.ZodObject, z.ZodObject>, 'run' | 'list'> {
  list: string | null;
  call(args: unknown, ctx: ToolContext): Promise<Record<string, unknown>>;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(definition: ToolDefinition<I, O>): Tool {
  const { run, ...meta } = definition;
  return {
    ...meta,
    call: async (args, ctx) => (await run(parseArguments(definition.name, definition.input, args), ctx)) as Record<string, unknown>,
  };
}
