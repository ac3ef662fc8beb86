/**
 * run_select and read_artifact: the agent's way to the data. run_select goes
 * through the same pipeline as POST /api/queries; the model gets at most 50
 * rows, the completeness block and the artifact handle, never the whole
 * result, and is told which limit cut the rows and who set it (the server,
 * this tool, or the query's own LIMIT). read_artifact pages, projects,
 * filters and sorts a stored result, 50 rows at a time at most.
 */
import { parse } from 'libpg-query';
import { readArtifactPage } from '../../artifacts/read-page.ts';
import type { Filter, SortKey } from '../../artifacts/types.ts';
import { queryError, queryData } from '../../query/query-view.ts';
import { stringArg, ToolInputError, type AgentTool } from './tool-types.ts';

export const MODEL_ROWS = 50;

/** The statement's own top-level LIMIT, if it is a plain number. */
async function ownLimit(sql: string): Promise<number | null> {
  try {
    const tree = (await parse(sql)) as { stmts: { stmt: { SelectStmt?: { limitCount?: { A_Const?: { ival?: { ival?: number } } } } } }[] };
    const ival = tree.stmts[0]?.stmt.SelectStmt?.limitCount?.A_Const?.ival;
    return ival === undefined ? null : (ival.ival ?? 0);
  } catch {
    return null;
  }
}

export const runSelectTool: AgentTool = {
  name: 'run_select',
  description:
    'Run one read-only SQL statement (SELECT, VALUES, TABLE or EXPLAIN). You get at most 50 rows, whether they are the whole result, and an artifact id holding the complete result when it is larger; page or filter that artifact with read_artifact instead of re-running the query.',
  parameters: {
    type: 'object',
    properties: {
      sql: { type: 'string' },
      materialize: { type: 'boolean', description: 'false: only the first rows, no artifact. Default true.' },
    },
    required: ['sql'],
    additionalProperties: false,
  },
  async run(input, ctx) {
    const sql = stringArg(input, 'sql')!;
    if (input.materialize !== undefined && typeof input.materialize !== 'boolean') throw new ToolInputError('"materialize" must be true or false.');
    const record = await ctx.queries.submit(ctx.principal, {
      datasource: ctx.datasource.id,
      sql,
      previewRows: MODEL_ROWS,
      materialize: input.materialize === false ? 'never' : 'auto',
      sessionId: ctx.sessionId,
    });
    const remaining = Math.max(0, ctx.deadline - Date.now());
    await record.settledWithin(remaining);
    if (record.state === 'RUNNING') record.cancel();
    await record.settled;
    if (record.state === 'FAILED') throw queryError(record);
    const data = queryData(record);
    if (data.artifact?.decision === 'CREATED' && data.artifact.id) ctx.artifacts.push(data.artifact.id);
    const c = data.completeness;
    const notes: string[] = [];
    if (c.status === 'COMPLETE') notes.push(`These ${c.returnedRows} rows are the whole result.`);
    else if (c.boundedBy === 'previewRows') {
      notes.push(`Only the first ${c.returnedRows} rows are shown (this tool shows at most ${MODEL_ROWS}).`);
    } else {
      notes.push(`The result was cut by ${c.boundedBy}, a limit set by the ${c.limitSetBy === 'request' ? 'request' : 'server'}; the total is unknown.`);
    }
    const limit = await ownLimit(sql);
    if (limit !== null && c.status === 'COMPLETE' && c.returnedRows === limit) {
      notes.push(`The query's own LIMIT ${limit} may have cut the result: more rows may match.`);
    }
    if (data.artifact?.decision === 'CREATED') notes.push(`The complete result (${data.artifact.rowCount} rows) is artifact ${data.artifact.id}: use read_artifact to page, filter or sort it.`);
    else if (data.artifact) notes.push(`No artifact: ${data.artifact.message ?? data.artifact.reason}`);
    return { columns: data.preview.columns, rows: data.preview.rows, completeness: c, artifact: data.artifact, notes };
  },
};

export const readArtifactTool: AgentTool = {
  name: 'read_artifact',
  description: 'Read rows of a stored result: artifact_id, optional columns, filters [{column, op, value}], sort [{column, direction}], limit (at most 50) and cursor (from nextCursor).',
  parameters: {
    type: 'object',
    properties: {
      artifact_id: { type: 'string' },
      cursor: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: MODEL_ROWS },
      columns: { type: 'array', items: { type: 'string' } },
      filters: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            column: { type: 'string' },
            op: { type: 'string', enum: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in', 'between', 'is_null', 'is_not_null', 'contains', 'starts_with'] },
            value: {},
          },
          required: ['column', 'op'],
        },
      },
      sort: {
        type: 'array',
        items: { type: 'object', properties: { column: { type: 'string' }, direction: { type: 'string', enum: ['asc', 'desc'] } }, required: ['column'] },
      },
    },
    required: ['artifact_id'],
    additionalProperties: false,
  },
  async run(input, ctx) {
    const id = stringArg(input, 'artifact_id')!;
    const limit = input.limit === undefined ? MODEL_ROWS : input.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MODEL_ROWS) throw new ToolInputError(`"limit" must be an integer from 1 to ${MODEL_ROWS}.`);
    for (const name of ['columns', 'filters', 'sort'] as const) {
      if (input[name] !== undefined && !Array.isArray(input[name])) throw new ToolInputError(`"${name}" must be an array.`);
    }
    const page = await readArtifactPage(ctx.store, ctx.cursors, ctx.principal.id, id, {
      cursor: stringArg(input, 'cursor', false),
      limit,
      columns: input.columns as string[] | undefined,
      filters: input.filters as Filter[] | undefined,
      sort: (input.sort as SortKey[] | undefined)?.map((s) => ({ column: s.column, direction: s.direction ?? 'asc' })),
    });
    return { columns: page.columns, rows: page.rows, nextCursor: page.nextCursor, firstRow: page.offset + 1 };
  },
};

export const aggregateArtifactTool: AgentTool = {
  name: 'aggregate_artifact',
  description: 'Aggregate a stored result without re-running its query: groupBy columns, metrics [{fn: count|count_distinct|sum|avg|min|max, column?, as?}], filters, sort, limit (at most 50 groups).',
  parameters: {
    type: 'object',
    properties: {
      artifact_id: { type: 'string' },
      groupBy: { type: 'array', items: { type: 'string' } },
      metrics: { type: 'array', items: { type: 'object' } },
      filters: { type: 'array', items: { type: 'object' } },
      sort: { type: 'array', items: { type: 'object' } },
      limit: { type: 'integer', minimum: 1, maximum: MODEL_ROWS },
    },
    required: ['artifact_id', 'metrics'],
    additionalProperties: false,
  },
  async run(input, ctx) {
    const id = stringArg(input, 'artifact_id')!;
    if (!Array.isArray(input.metrics)) throw new ToolInputError('"metrics" must be an array.');
    const limit = input.limit === undefined ? MODEL_ROWS : input.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MODEL_ROWS) throw new ToolInputError(`"limit" must be an integer from 1 to ${MODEL_ROWS}.`);
    const result = await ctx.store.aggregate(ctx.principal.id, id, {
      groupBy: input.groupBy as string[] | undefined,
      metrics: input.metrics as never,
      filters: input.filters as Filter[] | undefined,
      sort: (input.sort as SortKey[] | undefined)?.map((s) => ({ column: s.column, direction: s.direction ?? 'asc' })),
      limit,
    });
    return { columns: result.columns, rows: result.rows, truncated: result.more };
  },
};
