/**
 * The zod pieces tool arguments and results are made of. Where the HTTP API
 * has the same concept its schema is used (columns, completeness, the
 * artifact decision, filters, sort keys, intents), so a tool result is the
 * API's shape. Shapes whose route schemas are private to their route files
 * (tables, result fields, charts, aggregate metrics) are written here.
 */
import { z } from 'zod';
import { Column, Completeness } from '../../routes/common/schemas.ts';
import { FilterSchema, SortSchema } from '../../routes/artifacts/schemas.ts';
import { ArtifactDecision } from '../../routes/queries/schemas.ts';
import { AGGREGATE_FNS, FILTER_OPS } from '../../vocabulary.ts';

export { ArtifactDecision, Column, Completeness };

/** The most rows a tool puts in front of a model; more stay in the artifact. */
export const MODEL_ROWS = 50;

export const Rows = z.array(z.array(z.unknown()));

/** The API's filter, with the operators spelled out so a model sees them in the schema. */
export const ToolFilter = FilterSchema.extend({ op: z.enum(FILTER_OPS) });
export const ToolSort = SortSchema;

export const ArtifactId = z.string().min(1).max(200).describe('An artifact id (art_...) that run_select or run_query returned.');
export const RowLimit = z.number().int().min(1).max(MODEL_ROWS).default(MODEL_ROWS).describe(`At most ${MODEL_ROWS}.`);

export const AggregateMetric = z
  .strictObject({
    fn: z.enum(AGGREGATE_FNS),
    column: z.string().min(1).max(1000).optional().describe('Required for all but count.'),
    as: z.string().min(1).max(128).optional(),
  })
  .describe('One aggregate over the stored result.');

export const TableSummary = z.strictObject({
  schema: z.string(),
  name: z.string(),
  kind: z.enum(['table', 'view', 'materialized_view', 'foreign_table', 'partitioned_table']),
  estimatedRows: z.number().int().nullable(),
});

export const TableDetail = TableSummary.extend({
  columns: z.array(z.strictObject({ name: z.string(), type: z.string(), nullable: z.boolean() })),
  primaryKey: z.array(z.string()),
  foreignKeys: z.array(
    z.strictObject({ name: z.string(), columns: z.array(z.string()), references: z.strictObject({ schema: z.string(), table: z.string(), columns: z.array(z.string()) }) }),
  ),
});

export const ResultField = z.strictObject({ id: z.string(), source: z.union([z.literal(0), z.literal(1)]), kind: z.enum(['dimension', 'metric']) });

export const Chart = z.strictObject({
  type: z.enum(['table', 'bar', 'line', 'area', 'scatter']),
  x: z.string().max(200).optional(),
  y: z.array(z.string().max(200)).max(10).optional(),
  series: z.string().max(200).optional(),
});
