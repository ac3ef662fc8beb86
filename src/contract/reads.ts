/**
 * The shapes of a read over a stored result, shared by the artifact routes
 * and the AI and MCP tools: a filter, a sort key and an aggregate metric.
 */
import { z } from '@hono/zod-openapi';
import { AGGREGATE_FNS, FILTER_OPS, SORT_DIRECTIONS } from '../vocabulary.ts';

export const FilterSchema = z
  .object({
    column: z.string().min(1).max(1000),
    op: z.string().min(1).max(32).openapi({ description: `One of ${FILTER_OPS.join(', ')}; others answer UNSUPPORTED_CAPABILITY.` }),
    value: z.unknown().optional(),
  })
  .strict()
  .openapi('Filter');

export const SortSchema = z
  .object({ column: z.string().min(1).max(1000), direction: z.enum(SORT_DIRECTIONS).default('asc') })
  .strict()
  .openapi('SortKey');

/** One aggregate over a stored result. */
export const AggregateMetric = z
  .strictObject({
    fn: z.enum(AGGREGATE_FNS),
    column: z.string().max(1000).optional().openapi({ description: 'Required for all but count.' }),
    as: z.string().min(1).max(128).optional(),
  })
  .openapi('AggregateMetric');
