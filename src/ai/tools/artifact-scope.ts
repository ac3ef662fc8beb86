/**
 * Which artifacts the agent's read_artifact and aggregate_artifact may read:
 * those of its own session's tool chain, which is
 *   - every artifact run_select or run_query produced in this request, and
 *   - when the request names a sessionId, the artifacts already in that
 *     session (a client that continues a conversation across requests names
 *     its session, and so shares it with the agent).
 * A request without a sessionId keeps its artifacts in the caller's default
 * session, but the rest of that session (everything the caller ran without
 * naming one) is not the agent's to read. Any other artifact, even one of
 * the same principal, answers NOT_FOUND exactly as a missing one does,
 * before anything of it is read. MCP has no such scope (its client is the
 * caller's own and addresses artifacts by the links it was given).
 */
import { SluiceError, toSluiceError } from '../../errors.ts';
import type { ToolContext } from './tool-types.ts';

async function sessionOf(ctx: ToolContext, id: string): Promise<string | null> {
  try {
    return (await ctx.store.get(ctx.principal.id, id)).sessionId;
  } catch (error) {
    const failure = toSluiceError(error);
    if (failure.code === 'NOT_FOUND') return null;
    throw failure;
  }
}

export async function requireReadable(ctx: ToolContext, id: string): Promise<void> {
  const scope = ctx.artifactScope;
  if (scope === null || ctx.artifacts.includes(id)) return;
  if (scope.sharedSession !== null && (await sessionOf(ctx, id)) === scope.sharedSession) return;
  throw new SluiceError('NOT_FOUND', `No artifact "${id}" in this conversation: read only the artifact ids that run_select or run_query returned here.`);
}
