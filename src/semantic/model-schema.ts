/**
 * The semantic model file format (YAML, one or more explores per file),
 * validated with zod. Names are lower-case identifiers so field ids
 * (`explore.field`, `explore.dimension_grain`) are unambiguous.
 */
import { z } from 'zod';

const NAME = /^[a-z][a-z0-9_]*$/;
export const TIME_GRAINS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export const DIMENSION_TYPES = ['string', 'number', 'boolean', 'date', 'timestamp'] as const;
export const METRIC_TYPES = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export const FILTER_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in', 'between', 'is_null', 'is_not_null', 'contains', 'starts_with'] as const;

const Dimension = z
  .object({
    name: z.string().regex(NAME, 'must match [a-z][a-z0-9_]*'),
    type: z.enum(DIMENSION_TYPES),
    sql: z.string().min(1).optional(),
    label: z.string().optional(),
    description: z.string().optional(),
    timeGrains: z.array(z.enum(TIME_GRAINS)).optional(),
  })
  .strict();

const Metric = z
  .object({
    name: z.string().regex(NAME, 'must match [a-z][a-z0-9_]*'),
    type: z.enum(METRIC_TYPES),
    sql: z.string().min(1).optional(),
    label: z.string().optional(),
    description: z.string().optional(),
  })
  .strict();

const Parameter = z
  .object({
    name: z.string().regex(NAME, 'must match [a-z][a-z0-9_]*'),
    type: z.enum(['string', 'number', 'boolean', 'date', 'timestamp']),
    required: z.boolean().default(true),
    description: z.string().optional(),
  })
  .strict();

export const Explore = z
  .object({
    name: z.string().regex(NAME, 'must match [a-z][a-z0-9_]*'),
    label: z.string().optional(),
    description: z.string().optional(),
    datasource: z.string().default('default'),
    table: z.string().regex(/^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/, 'must be schema.table').optional(),
    sql: z.string().min(1).optional().describe('A SELECT; may use {{parameter}} placeholders, which are bound, never spliced.'),
    access: z.object({ roles: z.array(z.enum(['reader', 'analyst', 'admin'])).min(1) }).strict().optional(),
    requiredFilters: z.array(z.object({ field: z.string(), op: z.enum(FILTER_OPS) }).strict()).optional(),
    parameters: z.array(Parameter).optional(),
    dimensions: z.array(Dimension).default([]),
    metrics: z.array(Metric).default([]),
  })
  .strict()
  .refine((e) => (e.table === undefined) !== (e.sql === undefined), { message: 'needs exactly one of table or sql', path: ['table'] });

export const ModelFile = z.object({ explores: z.array(Explore).min(1) }).strict();

export type ExploreDef = z.infer<typeof Explore>;
export type DimensionDef = z.infer<typeof Dimension>;
export type MetricDef = z.infer<typeof Metric>;
export type TimeGrain = (typeof TIME_GRAINS)[number];
