/** Route definitions and schemas of /api/semantic: explores, metric and merge queries, saved visualizations. */
import { createRoute, z } from '@hono/zod-openapi';
import { normalizeIntent, SemanticIntent } from '../../semantic/intent.ts';
import { FIELD_KINDS, MATERIALIZE_MODES } from '../../vocabulary.ts';
import { Chart, ResultField } from '../../contract/charts.ts';
import { SessionId } from '../../contract/results.ts';
import { envelope, errorResponses, jsonResponse } from '../common/envelope.ts';
import { SEMANTIC_QUERY_FAILURES } from '../common/failures.ts';
import { IdParam } from '../common/schemas.ts';
import { tagged } from '../common/tags.ts';
import { QueryData } from '../queries/schemas.ts';

const Intent = z.preprocess(normalizeIntent, SemanticIntent);
const SemanticQueryEnvelope = envelope('SemanticQueryEnvelope', QueryData.extend({ fields: z.array(ResultField) }));

export const exploresRoute = createRoute({
  operationId: 'listExplores',
  method: 'get',
  path: '/api/semantic/explores',
  tags: tagged('Semantic'),
  summary: 'The explores this caller may use, with field ids and types',
  responses: {
    200: jsonResponse(
      envelope(
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
      ),
      'Explores.',
    ),
    ...errorResponses(),
  },
});

export const queryRoute = createRoute({
  operationId: 'runSemanticQuery',
  method: 'post',
  path: '/api/semantic/query',
  tags: tagged('Semantic'),
  summary: 'Run a metric or merge intent',
  description: 'Validated and compiled once into one statement, executed once through the /api/queries pipeline. A merge joins exactly two sources on dimensions of matching type and grain that cover every dimension of each source; its limit applies to the merged result only.',
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ intent: Intent, previewRows: z.number().int().min(0).max(500).optional(), materialize: z.enum(MATERIALIZE_MODES).optional(), sessionId: SessionId.optional(), waitMs: z.number().int().min(0).max(300_000).optional() })
            .strict()
            .openapi('SemanticQueryRequest'),
        },
      },
    },
  },
  responses: {
    200: jsonResponse(SemanticQueryEnvelope, 'The result, with each column named by field id and source.'),
    202: jsonResponse(SemanticQueryEnvelope, 'Still running after waitMs; poll GET /api/queries/{id} with the queryId.'),
    ...errorResponses(...SEMANTIC_QUERY_FAILURES),
  },
});

const VisualizationData = z
  .object({ id: z.string(), title: z.string().nullable(), intent: z.unknown(), chart: Chart, spec: z.record(z.string(), z.unknown()).openapi({ description: 'Vega-Lite v5.' }), artifactId: z.string().nullable(), fields: z.array(ResultField) })
  .openapi('Visualization');

export const createVizRoute = createRoute({
  operationId: 'createVisualization',
  method: 'post',
  path: '/api/semantic/visualizations',
  tags: tagged('Semantic'),
  summary: 'Save a chart of an intent (the intent, never compiled SQL), run it, and return its Vega-Lite spec',
  request: { body: { required: true, content: { 'application/json': { schema: z.object({ intent: Intent, chart: Chart, title: z.string().max(200).optional() }).strict().openapi('VisualizationRequest') } } } },
  responses: { 200: jsonResponse(envelope('VisualizationEnvelope', VisualizationData), 'The saved visualization.'), ...errorResponses(...SEMANTIC_QUERY_FAILURES) },
});

export const getVizRoute = createRoute({
  operationId: 'getVisualization',
  method: 'get',
  path: '/api/semantic/visualizations/{id}',
  tags: tagged('Semantic'),
  summary: 'A saved visualization',
  request: { params: IdParam },
  responses: {
    200: jsonResponse(envelope('SavedVisualizationEnvelope', z.object({ id: z.string(), title: z.string().nullable(), intent: z.unknown(), chart: Chart, createdAt: z.string() })), 'The visualization.'),
    ...errorResponses('NOT_FOUND'),
  },
});

export const renderRoute = createRoute({
  operationId: 'renderVisualization',
  method: 'get',
  path: '/api/semantic/visualizations/{id}/render.svg',
  tags: tagged('Semantic'),
  summary: 'The chart as an SVG picture, rendered on the server from fresh data (at most 500 rows)',
  request: { params: IdParam },
  responses: { 200: { description: 'SVG.', content: { 'image/svg+xml': { schema: z.string() } } }, ...errorResponses(...SEMANTIC_QUERY_FAILURES) },
});
