/** The query intents of the semantic layer (request shapes), as zod schemas. */
import { z } from '@hono/zod-openapi';
import { FILTER_OPS, SORT_DIRECTIONS } from '../vocabulary.ts';

const FieldId = z.string().min(3).max(200);

export const MetricQuery = z
  .object({
    explore: z.string().min(1).max(100),
    dimensions: z.array(FieldId).max(20).default([]),
    metrics: z.array(FieldId).max(50).default([]),
    filters: z.array(z.object({ field: FieldId, op: z.enum(FILTER_OPS), value: z.unknown().optional() }).strict()).max(50).optional(),
    sorts: z.array(z.object({ field: FieldId, direction: z.enum(SORT_DIRECTIONS).default('asc') }).strict()).max(20).optional(),
    limit: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict()
  .openapi('MetricQuery');

const Parameters = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional();

export const MetricIntent = z.object({ type: z.literal('metric'), query: MetricQuery, parameters: Parameters }).strict();

export const MergeIntent = z
  .object({
    type: z.literal('merge'),
    query: z
      .object({
        sources: z.array(MetricQuery).min(1).max(8).openapi({ description: 'Exactly two for now.' }),
        joinOn: z.array(z.object({ left: FieldId, right: FieldId }).strict()).max(20),
        joinType: z.enum(['left', 'inner', 'full']).default('left'),
        tableCalculations: z
          .array(
            z
              .object({
                name: z.string().min(1).max(200).openapi({ description: 'The result column it makes: a lowercase letter, then up to 62 lowercase letters, digits or underscores.' }),
                // Longer than the compiler accepts, so a too-long expression is reported with the intent's other errors.
                expression: z.string().max(100_000).openapi({
                  description:
                    'Sluice\'s own grammar, compiled by Sluice and never spliced as SQL: numbers, merged field ids (join keys, metrics of either source), + - * /, parentheses, coalesce(a, b, ...) and nullif(a, b); at most 1000 characters and 20 levels of nesting. Division by zero gives NULL.',
                  example: '(sales.revenue - returns.refunded) / sales.revenue',
                }),
              })
              .strict(),
          )
          .max(20)
          .optional()
          .openapi({ description: 'Columns computed over the merged rows, after the join; sorts may name them.' }),
        sorts: z
          .array(z.object({ field: FieldId, direction: z.enum(SORT_DIRECTIONS).default('asc') }).strict())
          .max(20)
          .optional()
          .openapi({ description: 'Any column of the merged result: a join key (by either side\'s id), a metric of either source, a table calculation. Default: the join keys.' }),
        limit: z.number().int().min(1).max(1_000_000).optional(),
      })
      .strict(),
    parameters: Parameters,
  })
  .strict();

export const SemanticIntent = z.discriminatedUnion('type', [MetricIntent, MergeIntent]).openapi('SemanticQueryIntent');

export type MetricQueryT = z.infer<typeof MetricQuery>;
export type SemanticIntentT = z.infer<typeof SemanticIntent>;

/** A stored intent without `type` is a metric intent (older saved charts). */
export function normalizeIntent(raw: unknown): unknown {
  if (raw !== null && typeof raw === 'object' && !('type' in raw)) {
    const value = raw as Record<string, unknown>;
    return 'query' in value ? { type: 'metric', ...value } : { type: 'metric', query: value };
  }
  return raw;
}
