/**
 * What an agent tool is: a name, a JSON schema the model fills in, and an
 * executor that gets the caller's own privileges. No tool can write.
 */
import type { Principal } from '../../auth/principals.ts';
import type { CursorCodec } from '../../artifacts/cursor.ts';
import type { ArtifactStore } from '../../artifacts/types.ts';
import type { Datasource } from '../../datasources/registry.ts';
import type { QueryService } from '../../query/query-service.ts';
import type { SemanticService } from '../../semantic/semantic-service.ts';
import type { VisualizationStore } from '../../semantic/visualization-store.ts';

export interface ToolContext {
  principal: Principal;
  datasource: Datasource;
  sessionId: string;
  queries: QueryService;
  store: ArtifactStore;
  cursors: CursorCodec;
  /** Epoch ms by which the whole request must end. */
  deadline: number;
  /** Artifacts this request created, in order. */
  artifacts: string[];
  semantic: SemanticService | null;
  visualizations: VisualizationStore | null;
  /** Field ids find_fields has shown in this conversation; run_query may use only these. Null: no such rule. */
  discoveredFields: Set<string> | null;
}

export interface AgentTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

/** The model's arguments did not fit the tool's schema. */
export class ToolInputError extends Error {}

export function stringArg(input: Record<string, unknown>, name: string, required = true): string | undefined {
  const value = input[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new ToolInputError(`"${name}" must be a non-empty string.`);
  return value;
}
