/**
 * run_select: the caller's SQL through the query use-case, as POST
 * /api/queries runs it. The result is at most 50 rows, the completeness
 * block and the artifact handle, never the whole result, with notes that say
 * which limit cut the rows and who set it (the server, this tool, or the
 * query's own LIMIT). A query still running at the request's deadline is
 * cancelled: a tool call cannot be polled.
 */
import { z } from 'zod';
import type { QueryData } from '../../query/query-types.ts';
import { defineTool } from './tool-types.ts';
import { ArtifactDecision, Column, Completeness, MODEL_ROWS, Rows } from './tool-schemas.ts';

async function notesOf(sql: string, data: QueryData, ownLimit: (sql: string) => Promise<number | null>): Promise<string[]> {
  const c = data.completeness;
  const notes: string[] = [];
  if (data.state === 'CANCELLED') notes.push('The query was still running at the request\u2019s time limit and was cancelled.');
  if (c.status === 'COMPLETE') notes.push(`These ${c.returnedRows} rows are the whole result.`);
  else if (c.boundedBy === 'previewRows') notes.push(`Only the first ${c.returnedRows} rows are shown (this tool shows at most ${MODEL_ROWS}).`);
  else notes.push(`The result was cut by ${c.boundedBy ?? 'a failure to store it'}${c.limitSetBy === null ? '' : `, a limit set by the ${c.limitSetBy}`}; the total is unknown.`);
  const limit = await ownLimit(sql);
  if (limit !== null && c.status === 'COMPLETE' && c.returnedRows === limit) notes.push(`The query's own LIMIT ${limit} may have cut the result: more rows may match.`);
  const a = data.artifact;
  if (a?.decision === 'CREATED') notes.push(`The complete result (${a.rowCount} rows) is artifact ${a.id}: use read_artifact or aggregate_artifact to page, filter, sort or summarize it.`);
  else if (a) notes.push(`No artifact: ${a.message ?? a.reason}`);
  return notes;
}

export const runSelectTool = defineTool({
  name: 'run_select',
  description: `Run one read-only SQL statement (SELECT, VALUES, TABLE or EXPLAIN). You get at most ${MODEL_ROWS} rows, whether they are the whole result, and an artifact id holding the complete result when it is larger; page, filter or aggregate that artifact with read_artifact or aggregate_artifact instead of re-running the query.`,
  role: 'reader',
  surfaces: ['agent', 'mcp'],
  usesDatasource: true,
  needsSemantic: false,
  input: z.strictObject({
    sql: z.string().min(1).max(1_000_000),
    materialize: z.boolean().default(true).describe('false: only the first rows, no artifact. Default true.'),
  }),
  output: z.strictObject({ columns: z.array(Column), rows: Rows, completeness: Completeness, artifact: ArtifactDecision.nullable(), notes: z.array(z.string()) }),
  list: 'rows',
  async run(input, ctx) {
    const { data } = await ctx.queries.run(
      ctx.principal,
      { datasource: ctx.datasource.id, sql: input.sql, previewRows: MODEL_ROWS, materialize: input.materialize ? 'auto' : 'never', sessionId: ctx.sessionId },
      { waitMs: Math.max(0, ctx.deadline - Date.now()), onTimeout: 'cancel' },
    );
    if (data.artifact?.decision === 'CREATED' && data.artifact.id) ctx.artifacts.push(data.artifact.id);
    return { columns: data.preview.columns, rows: data.preview.rows, completeness: data.completeness, artifact: data.artifact, notes: await notesOf(input.sql, data, (sql) => ctx.datasource.driver.ownLimit(sql)) };
  },
});
