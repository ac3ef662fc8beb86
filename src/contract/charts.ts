/** The shapes of a semantic result's fields and of a chart, shared by the semantic routes and the AI tools. */
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
