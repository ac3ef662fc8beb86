/** The shapes of a semantic result's fields, of a chart and of the rows it draws, shared by the semantic routes and the AI tools. */
import { z } from '@hono/zod-openapi';
import { CHART_TYPES, RESULT_FIELD_KINDS } from '../vocabulary.ts';

export const ResultField = z
  .strictObject({
    id: z.string().openapi({ description: 'The field id, or a table calculation\'s name.' }),
    source: z.union([z.literal(0), z.literal(1)]).optional().openapi({ description: 'The source of a dimension or metric; absent for a table calculation.' }),
    kind: z.enum(RESULT_FIELD_KINDS),
  })
  .openapi('ResultField');

export const Chart = z
  .object({
    type: z.enum(CHART_TYPES),
    x: z.string().max(200).optional(),
    y: z.array(z.string().max(200)).max(10).optional(),
    series: z.string().max(200).optional(),
  })
  .strict()
  .openapi('ChartConfig');

/** The most rows a chart draws: the first ones of the result. */
export const CHART_ROWS = 500;

/** How many of the result's rows a chart draws, and how many the result has. */
export const ChartRows = {
  drawnRows: z.number().int().openapi({ description: 'Rows of the result the chart draws (the first ones, at most 500).' }),
  totalRows: z.number().int().nullable().openapi({ description: 'Rows of the whole result; more than drawnRows when the chart shows only the first ones; null when unknown (a cap stopped the result).' }),
};

