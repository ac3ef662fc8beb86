/**
 * read_artifact and aggregate_artifact: a stored result paged, projected,
 * filtered, sorted or aggregated without re-running its query, 50 rows or
 * groups at a time at most. In the agent they read only the artifacts of
 * its own tool chain (artifact-scope.ts).
 */
import { z } from 'zod';
import { pageRows, readArtifactPage } from '../../artifacts/read-page.ts';
import { cutLongCells } from '../../columns/cell-cut.ts';
import { requireReadable } from './artifact-scope.ts';
import { defineTool } from './tool-types.ts';
import { AggregateMetric, ArtifactId, Column, CutCells, MODEL_ROWS, RowLimit, Rows, ToolFilter, ToolSort } from './tool-schemas.ts';

const Columns = z.array(z.string().min(1).max(1000)).min(1).max(1600);
const Filters = z.array(ToolFilter).max(100);
const Sort = z.array(ToolSort).max(32);

export const readArtifactTool = defineTool({
  name: 'read_artifact',
  description: `Read rows of a stored result: artifact_id, optional columns, filters [{column, op, value}], sort [{column, direction}], limit (at most ${MODEL_ROWS}) and cursor (from nextCursor).`,
  role: 'reader',
  surfaces: ['agent', 'mcp'],
  usesDatasource: false,
  needsSemantic: false,
  input: z.strictObject({
    artifact_id: ArtifactId,
    cursor: z.string().min(1).max(4096).optional().describe('nextCursor of the previous page, with the same columns, filters and sort.'),
    limit: RowLimit,
    columns: Columns.optional(),
    filters: Filters.optional(),
    sort: Sort.optional(),
  }),
  output: z.strictObject({
    columns: z.array(Column),
    rows: Rows,
    cutCells: CutCells,
    nextCursor: z.string().nullable(),
    firstRow: z.number().int().describe('The 1-based position of the first row among the matching rows.'),
  }),
  list: 'rows',
  async run(input, ctx) {
    await requireReadable(ctx, input.artifact_id);
    const page = await readArtifactPage(ctx.store, ctx.cursors, ctx.principal.id, input.artifact_id, {
      cursor: input.cursor,
      limit: input.limit,
      columns: input.columns,
      filters: input.filters,
      sort: input.sort,
    });
    // The page holds every value whole; the model sees them cut as a preview shows them, so one long value cannot take the whole budget.
    const { rows, cutCells } = cutLongCells(pageRows(page.rowsJson), ctx.queries.previewCellChars);
    return { columns: page.columns, rows, cutCells, nextCursor: page.nextCursor, firstRow: page.offset + 1 };
  },
});

export const aggregateArtifactTool = defineTool({
  name: 'aggregate_artifact',
  description: `Aggregate a stored result without re-running its query: groupBy columns, metrics [{fn: count|count_distinct|sum|avg|min|max, column?, as?}], filters, sort, limit (at most ${MODEL_ROWS} groups).`,
  role: 'reader',
  surfaces: ['agent', 'mcp'],
  usesDatasource: false,
  needsSemantic: false,
  input: z.strictObject({
    artifact_id: ArtifactId,
    groupBy: Columns.max(32).optional(),
    metrics: z.array(AggregateMetric).min(1).max(50),
    filters: Filters.optional(),
    sort: Sort.optional().describe('By output column name (a groupBy column or a metric\u2019s `as`).'),
    limit: RowLimit,
  }),
  output: z.strictObject({ columns: z.array(Column), rows: Rows, cutCells: CutCells, truncated: z.boolean().describe('True when more groups exist than limit.') }),
  list: 'rows',
  async run(input, ctx) {
    await requireReadable(ctx, input.artifact_id);
    const result = await ctx.store.aggregate(ctx.principal.id, input.artifact_id, {
      groupBy: input.groupBy,
      metrics: input.metrics,
      filters: input.filters,
      sort: input.sort,
      limit: input.limit,
    });
    const { rows, cutCells } = cutLongCells(result.rows, ctx.queries.previewCellChars);
    return { columns: result.columns, rows, cutCells, truncated: result.more };
  },
});
