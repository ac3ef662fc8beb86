/** Route definitions of /api/semantic: explores, metric and merge queries, saved visualizations. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { SEMANTIC_QUERY_FAILURES, STORE_FAILURES } from '../common/failures.ts';
import { IdParam } from '../common/schemas.ts';
import { tagged } from '../common/tags.ts';
import {
  ExploreListEnvelope,
  SavedVisualizationEnvelope,
  SemanticQueryEnvelope,
  SemanticQueryRequest,
  SvgImage,
  VisualizationDeleteEnvelope,
  VisualizationEnvelope,
  VisualizationListEnvelope,
  VisualizationListQuery,
  VisualizationRequest,
} from './schemas.ts';

export const exploresRoute = createRoute({
  operationId: 'listExplores',
  method: 'get',
  path: '/api/semantic/explores',
  tags: tagged('Semantic'),
  summary: 'The explores this caller may use, with field ids and types',
  responses: { 200: jsonResponse(ExploreListEnvelope, 'Explores.'), ...errorResponses() },
});

export const queryRoute = createRoute({
  operationId: 'runSemanticQuery',
  method: 'post',
  path: '/api/semantic/query',
  tags: tagged('Semantic'),
  summary: 'Run a metric or merge intent',
  description:
    'Validated and compiled once into one statement, executed once through the /api/queries pipeline (a merge after the one statement that counts its sources). A merge joins exactly two sources on dimensions of matching type and grain (a date key joins a timestamp key at a shared grain, as dates) that cover every dimension of each source; keys NULL on both sides match and make one row. A source (counted up to SLUICE_MERGE_SOURCE_ROWS + 1 rows) over the cap fails the merge (kind `source_row_cap`), never trimmed. Table calculations, sorts (any merged column) and limit apply to the merged result only. Every validation error is reported at once in `error.details.errors`.',
  request: { body: { required: true, content: { 'application/json': { schema: SemanticQueryRequest } } } },
  responses: {
    200: jsonResponse(SemanticQueryEnvelope, 'The result, with each column named by field id and source.'),
    202: jsonResponse(SemanticQueryEnvelope, 'Still running after waitMs; poll GET /api/queries/{id} with the queryId.'),
    ...errorResponses(...SEMANTIC_QUERY_FAILURES),
  },
});

export const createVizRoute = createRoute({
  operationId: 'createVisualization',
  method: 'post',
  path: '/api/semantic/visualizations',
  tags: tagged('Semantic'),
  summary: 'Save a chart of an intent (the intent, never compiled SQL), run it, and return its Vega-Lite spec',
  request: { body: { required: true, content: { 'application/json': { schema: VisualizationRequest } } } },
  responses: { 200: jsonResponse(VisualizationEnvelope, 'The saved visualization.'), ...errorResponses(...SEMANTIC_QUERY_FAILURES) },
});

export const listVizRoute = createRoute({
  operationId: 'listVisualizations',
  method: 'get',
  path: '/api/semantic/visualizations',
  tags: tagged('Semantic'),
  summary: 'The caller\u2019s saved visualizations, newest first',
  description: 'Only the caller\u2019s own. A bad limit is VALIDATION_ERROR; a cursor this server did not hand out is INVALID_CURSOR.',
  request: { query: VisualizationListQuery },
  responses: { 200: jsonResponse(VisualizationListEnvelope, 'A page of visualizations; nextCursor is null on the last page.'), ...errorResponses('INVALID_CURSOR', ...STORE_FAILURES) },
});

export const deleteVizRoute = createRoute({
  operationId: 'deleteVisualization',
  method: 'delete',
  path: '/api/semantic/visualizations/{id}',
  tags: tagged('Semantic'),
  summary: 'Delete one of the caller\u2019s saved visualizations',
  description: 'An id the caller never saved, another principal\u2019s, or one already deleted is NOT_FOUND, and nothing changes.',
  request: { params: IdParam },
  responses: { 200: jsonResponse(VisualizationDeleteEnvelope, 'Deleted.'), ...errorResponses('NOT_FOUND', ...STORE_FAILURES) },
});

export const getVizRoute = createRoute({
  operationId: 'getVisualization',
  method: 'get',
  path: '/api/semantic/visualizations/{id}',
  tags: tagged('Semantic'),
  summary: 'A saved visualization',
  request: { params: IdParam },
  responses: { 200: jsonResponse(SavedVisualizationEnvelope, 'The visualization.'), ...errorResponses('NOT_FOUND') },
});

export const renderRoute = createRoute({
  operationId: 'renderVisualization',
  method: 'get',
  path: '/api/semantic/visualizations/{id}/render.svg',
  tags: tagged('Semantic'),
  summary: 'The chart as an SVG picture, rendered on the server from fresh data (at most 500 rows)',
  request: { params: IdParam },
  responses: { 200: { description: 'SVG.', content: { 'image/svg+xml': { schema: SvgImage } } }, ...errorResponses(...SEMANTIC_QUERY_FAILURES) },
});
