/**
 * The zod pieces tool arguments and results are made of. Where the HTTP API
 * has the same concept its schema is used (columns, completeness, the
 * artifact decision, filters, sort keys, intents, tables, result fields,
 * charts, aggregate metrics), so a tool result is the API's shape; only
 * what tools alone have is written here.
 */
import { z } from 'zod';
import { ArtifactDecision, Column, Completeness, CutCell } from '../../contract/results.ts';
import { AggregateMetric, FilterSchema, SortSchema } from '../../contract/reads.ts';
import { TableDetail, TableSummary } from '../../contract/tables.ts';
import { Chart, ResultField } from '../../contract/charts.ts';
import { FILTER_OPS } from '../../vocabulary.ts';

export { AggregateMetric, ArtifactDecision, Chart, Column, Completeness, ResultField, TableDetail, TableSummary };

/** The most rows a tool puts in front of a model; more stay in the artifact. */
export const MODEL_ROWS = 50;

export const Rows = z.array(z.array(z.unknown()));

/** The cells of `rows` cut to SLUICE_PREVIEW_CELL_CHARS, as a query's preview lists them; the artifact holds them whole. */
export const CutCells = z.array(CutCell).describe('Values in rows cut short because they were longer than the cell bound: row and column index rows and columns, chars is the whole value\u2019s length. The artifact and its downloads hold every value whole.');

/** The API's filter, with the operators spelled out so a model sees them in the schema. */
export const ToolFilter = FilterSchema.extend({ op: z.enum(FILTER_OPS) });
export const ToolSort = SortSchema;

export const ArtifactId = z.string().min(1).max(200).describe('An artifact id (art_...) that run_select or run_query returned.');
export const RowLimit = z.number().int().min(1).max(MODEL_ROWS).default(MODEL_ROWS).describe(`At most ${MODEL_ROWS}.`);

