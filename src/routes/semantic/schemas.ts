/** Request and response schemas of /api/semantic: explores, metric and merge queries, saved visualizations. */
import { z } from '@hono/zod-openapi';
import { normalizeIntent, SemanticIntent } from '../../semantic/intent.ts';
import { FIELD_KINDS, MATERIALIZE_MODES } from '../../vocabulary.ts';
import { Chart, ChartRows, ResultField } from '../../contract/charts.ts';
import { SessionId } from '../../contract/results.ts';
import { envelope } from '../common/envelope.ts';
import { QueryData } from '../queries/schemas.ts';

/** An intent as sent, normalized before it is validated (the same step a saved intent goes through). */
const Intent = z.preprocess(normalizeIntent, SemanticIntent);

export const ExploreListEnvelope = envelope(
  'ExploreListEnvelope',
  z.object({
    explores: z.array(
      z.object({
        name: z.string(),
        label: z.string().optional(),
        description: z.string().optional(),
        datasource: z.string(),
        fields: z.array(z.object({ id: z.string(), kind: z.enum(FIELD_KINDS), type: z.string(), label: z.string().optional(), description: z.string().optional() })),
        requiredFilters: z.array(z.object({ field: z.string(), op: z.string() })),
        parameters: z.array(z.object({ name: z.string(), type: z.string(), required: z.boolean() })),
      }),
    ),
  }),
);

export const SemanticQueryRequest = z
  .object({ intent: Intent, previewRows: z.number().int().min(0).max(500).optional(), materialize: z.enum(MATERIALIZE_MODES).optional(), sessionId: SessionId.optional(), waitMs: z.number().int().min(0).max(300_000).optional() })
  .strict()
  .openapi('SemanticQueryRequest');

export const SemanticQueryEnvelope = envelope('SemanticQueryEnvelope', QueryData.extend({ fields: z.array(ResultField) }));

export const VisualizationRequest = z.object({ intent: Intent, chart: Chart, title: z.string().max(200).optional() }).strict().openapi('VisualizationRequest');

const VisualizationData = z
  .object({ id: z.string(), title: z.string().nullable(), intent: z.unknown(), chart: Chart, spec: z.record(z.string(), z.unknown()).openapi({ description: 'Vega-Lite v5.' }), artifactId: z.string().nullable(), fields: z.array(ResultField), ...ChartRows })
  .openapi('Visualization');

export const VisualizationEnvelope = envelope('VisualizationEnvelope', VisualizationData);

export const SavedVisualizationEnvelope = envelope(
  'SavedVisualizationEnvelope',
  z.object({ id: z.string(), title: z.string().nullable(), intent: z.unknown(), chart: Chart, createdAt: z.string() }),
);

export const VisualizationListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional().openapi({ param: { name: 'limit', in: 'query' }, description: 'Items per page, 1 to 500. Default 50.' }),
  cursor: z.string().min(1).max(200).optional().openapi({ param: { name: 'cursor', in: 'query' }, description: 'The nextCursor of the previous page.' }),
});

export const VisualizationListEnvelope = envelope(
  'VisualizationListEnvelope',
  z.object({
    visualizations: z.array(z.object({ id: z.string(), title: z.string().nullable(), createdAt: z.string().openapi({ format: 'date-time' }) }).openapi('VisualizationSummary')),
    nextCursor: z.string().nullable(),
  }),
);

export const VisualizationDeleteEnvelope = envelope('VisualizationDeleteEnvelope', z.object({ id: z.string(), deleted: z.boolean() }));

export const SvgImage = z.string();
