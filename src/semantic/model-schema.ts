/**
 * The semantic model file format (YAML, one or more explores per file),
 * validated with zod. Names are lower-case identifiers so field ids
 * (`explore.field`, `explore.dimension_grain`) are unambiguous.
 */
import { z } from 'zod';
import { AGGREGATE_FNS, FILTER_OPS, ROLES } from '../vocabulary.ts';

const NAME = /^[a-z][a-z0-9_]*$/;
export const TIME_GRAINS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export const DIMENSION_TYPES = ['string', 'number', 'boolean', 'date', 'timestamp'] as const;
/** A metric's type is one of the aggregate functions artifacts offer too. */
export const METRIC_TYPES = AGGREGATE_FNS;

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
    type: z.enum(DIMENSION_TYPES),
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
    access: z.object({ roles: z.array(z.enum(ROLES)).min(1) }).strict().optional(),
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
