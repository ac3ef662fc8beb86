/**
 * run_select: the caller's SQL through the query use-case, as POST
 * /api/queries runs it. By default the database is asked for at most 50
 * rows (plus one, to know whether more exist) through the query's row cap,
 * so an exploratory SELECT costs 50 rows and no artifact on any engine;
 * only `keep_full_result: true` reads the whole result into an artifact
 * charged to the caller. The answer is at most 50 rows, the completeness
 * block and the artifact decision, with notes that say which limit cut the
 * rows, who set it (the server, this tool, or the query's own LIMIT), and
 * how to ask for the rest. A query still running at the request's deadline
 * is cancelled: a tool call cannot be polled.
 */
import { z } from 'zod';
import type { ArtifactDecision as Decision, QueryData } from '../../query/query-types.ts';
import { defineTool } from './tool-types.ts';
import { ArtifactDecision, Column, Completeness, CutCells, MODEL_ROWS, Rows } from './tool-schemas.ts';

const ASK_FULL = `To get the whole result, call run_select again with "keep_full_result": true: it is kept as an artifact to page, filter or aggregate with read_artifact or aggregate_artifact. Or narrow the query (a WHERE, a GROUP BY, fewer columns).`;

async function notesOf(sql: string, data: QueryData, keep: boolean, ownLimit: (sql: string) => Promise<number | null>): Promise<string[]> {
  const c = data.completeness;
  const notes: string[] = [];
  if (data.state === 'CANCELLED') notes.push('The query was still running at the request\u2019s time limit and was cancelled.');
  if (c.status === 'COMPLETE') notes.push(`These ${c.returnedRows} rows are the whole result.`);
  else if (!keep && c.boundedBy === 'maxRows' && c.limitSetBy === 'server') notes.push(`More rows exist: only the first ${c.returnedRows} were read (this tool reads at most ${MODEL_ROWS} unless asked for the whole result). ${ASK_FULL}`);
  else if (c.boundedBy === 'previewRows') notes.push(`Only the first ${c.returnedRows} rows are shown (this tool shows at most ${MODEL_ROWS}).`);
  else if (c.boundedBy === 'previewBytes') notes.push(`The rows shown are cut to the preview's size (${c.returnedRows} of ${c.totalRows ?? 'an unknown number of'} rows; cutCells lists values cut short). ${keep ? '' : ASK_FULL}`.trim());
  else notes.push(`The result was cut by ${c.boundedBy ?? 'a failure to store it'}${c.limitSetBy === null ? '' : `, a limit set by the ${c.limitSetBy}`}; the total is unknown.`);
  const limit = await ownLimit(sql);
  if (limit !== null && c.status === 'COMPLETE' && c.returnedRows === limit) notes.push(`The query's own LIMIT ${limit} may have cut the result: more rows may match.`);
  const a = data.artifact;
  if (a?.decision === 'CREATED') notes.push(`The complete result (${a.rowCount} rows) is artifact ${a.id}: use read_artifact or aggregate_artifact to page, filter, sort or summarize it.`);
  else if (a && a.reason !== 'MATERIALIZE_NEVER' && a.reason !== 'PREVIEW_COMPLETE') notes.push(`No artifact: ${a.message ?? a.reason}`);
  return notes;
}

/** What the tool says of the artifact it did not keep because the call did not ask. */
function unkept(data: QueryData): Decision | null {
  const a = data.artifact;
  if (a?.reason !== 'MATERIALIZE_NEVER') return a;
  if (data.completeness.status === 'COMPLETE') return { decision: 'SKIPPED', reason: 'PREVIEW_COMPLETE', message: 'These rows are the whole result, so no artifact was needed.' };
  return { decision: 'SKIPPED', reason: 'MATERIALIZE_NEVER', message: 'keep_full_result was not set: only the first rows were read, and nothing was kept.' };
}

export const runSelectTool = defineTool({
  name: 'run_select',
  description: `Run one read-only SQL statement (SELECT, VALUES, TABLE or EXPLAIN). The database is asked for at most ${MODEL_ROWS} rows; the completeness block says whether they are the whole result (status INCOMPLETE, boundedBy maxRows when more exist). For the whole result, call with "keep_full_result": true: it is stored as an artifact (counted against the caller's quota) whose id you page, filter or aggregate with read_artifact or aggregate_artifact instead of re-running the query. Prefer a narrower query when ${MODEL_ROWS} rows are not enough.`,
  role: 'reader',
  surfaces: ['agent', 'mcp'],
  usesDatasource: true,
  needsSemantic: false,
  input: z.strictObject({
    sql: z.string().min(1).max(1_000_000),
    keep_full_result: z
      .boolean()
      .default(false)
      .describe(`true: read the whole result and keep it as an artifact to page, filter or aggregate. Default false: at most ${MODEL_ROWS} rows are read and nothing is kept.`),
  }),
  output: z.strictObject({ columns: z.array(Column), rows: Rows, cutCells: CutCells, completeness: Completeness, artifact: ArtifactDecision.nullable(), notes: z.array(z.string()) }),
  list: 'rows',
  async run(input, ctx) {
    const keep = input.keep_full_result;
    const { data } = await ctx.queries.run(
      ctx.principal,
      {
        datasource: ctx.datasource.id,
        sql: input.sql,
        previewRows: MODEL_ROWS,
        sessionId: ctx.sessionId,
        // Without keep_full_result the row cap, not the SQL text, stops the read: every engine honours it.
        ...(keep ? { materialize: 'auto' as const } : { materialize: 'never' as const, serverMaxRows: MODEL_ROWS }),
      },
      { waitMs: Math.max(0, ctx.deadline - Date.now()), onTimeout: 'cancel' },
    );
    if (data.artifact?.decision === 'CREATED' && data.artifact.id) ctx.artifacts.push(data.artifact.id);
    const notes = await notesOf(input.sql, data, keep, (sql) => ctx.datasource.driver.ownLimit(sql));
    return { columns: data.preview.columns, rows: data.preview.rows, cutCells: data.preview.cutCells, completeness: data.completeness, artifact: keep ? data.artifact : unkept(data), notes };
  },
});
