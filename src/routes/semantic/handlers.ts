/** /api/semantic: explores, metric and merge queries, and saved visualizations (analyst role and up). */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import { chartSpec, renderSvg } from '../../semantic/chart-spec.ts';
import { normalizeIntent, SemanticIntent, type SemanticIntentT } from '../../semantic/intent.ts';
import type { SemanticService } from '../../semantic/semantic-service.ts';
import type { VisualizationStore } from '../../semantic/visualization-store.ts';
import { SluiceError } from '../../errors.ts';
import { MATERIALIZE_MODES } from '../../vocabulary.ts';
import { envelope, errorResponses, jsonResponse, ok } from '../common/envelope.ts';
import { IdParam, SessionId } from '../common/schemas.ts';
import { QueryData } from '../queries/schemas.ts';

const Intent = z.preprocess(normalizeIntent, SemanticIntent);
const Field = z.object({ id: z.string(), source: z.union([z.literal(0), z.literal(1)]), kind: z.enum(['dimension', 'metric']) }).openapi('ResultField');
const Chart = z
  .object({
    type: z.enum(['table', 'bar', 'line', 'area', 'scatter']),
    x: z.string().max(200).optional(),
    y: z.array(z.string().max(200)).max(10).optional(),
    series: z.string().max(200).optional(),
  })
  .strict()
  .openapi('ChartConfig');
const SEMANTIC_ERRORS = ['NOT_FOUND', 'SEMANTIC_VALIDATION_ERROR', 'SQL_ERROR', 'QUERY_TIMEOUT'] as const;

const exploresRoute = createRoute({
  method: 'get',
  path: '/api/semantic/explores',
  tags: ['Semantic'],
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
              fields: z.array(z.object({ id: z.string(), kind: z.enum(['dimension', 'metric']), type: z.string(), label: z.string().optional(), description: z.string().optional() })),
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

const queryRoute = createRoute({
  method: 'post',
  path: '/api/semantic/query',
  tags: ['Semantic'],
  summary: 'Run a metric or merge intent',
  description: 'Validated and compiled once into one statement, executed once through the /api/queries pipeline. A merge joins exactly two sources on dimensions of matching type and grain that cover every dimension of each source; its limit applies to the merged result only.',
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ intent: Intent, previewRows: z.number().int().min(0).max(500).optional(), materialize: z.enum(['auto', 'always', 'never']).optional(), sessionId: SessionId.optional(), waitMs: z.number().int().min(0).max(300_000).optional() })
            .strict()
            .openapi('SemanticQueryRequest'),
        },
      },
    },
  },
  responses: { 200: jsonResponse(envelope('SemanticQueryEnvelope', QueryData.extend({ fields: z.array(Field) })), 'The result, with each column named by field id and source.'), ...errorResponses(...SEMANTIC_ERRORS) },
});

const VisualizationData = z
  .object({ id: z.string(), title: z.string().nullable(), intent: z.unknown(), chart: Chart, spec: z.record(z.string(), z.unknown()).openapi({ description: 'Vega-Lite v5.' }), artifactId: z.string().nullable(), fields: z.array(Field) })
  .openapi('Visualization');

const createVizRoute = createRoute({
  method: 'post',
  path: '/api/semantic/visualizations',
  tags: ['Semantic'],
  summary: 'Save a chart of an intent (the intent, never compiled SQL), run it, and return its Vega-Lite spec',
  request: { body: { required: true, content: { 'application/json': { schema: z.object({ intent: Intent, chart: Chart, title: z.string().max(200).optional() }).strict().openapi('VisualizationRequest') } } } },
  responses: { 200: jsonResponse(envelope('VisualizationEnvelope', VisualizationData), 'The saved visualization.'), ...errorResponses(...SEMANTIC_ERRORS) },
});

const getVizRoute = createRoute({
  method: 'get',
  path: '/api/semantic/visualizations/{id}',
  tags: ['Semantic'],
  summary: 'A saved visualization',
  request: { params: IdParam },
  responses: {
    200: jsonResponse(envelope('SavedVisualizationEnvelope', z.object({ id: z.string(), title: z.string().nullable(), intent: z.unknown(), chart: Chart, createdAt: z.string() })), 'The visualization.'),
    ...errorResponses('NOT_FOUND'),
  },
});

const renderRoute = createRoute({
  method: 'get',
  path: '/api/semantic/visualizations/{id}/render.svg',
  tags: ['Semantic'],
  summary: 'The chart as an SVG picture, rendered on the server from fresh data (at most 500 rows)',
  request: { params: IdParam },
  responses: { 200: { description: 'SVG.', content: { 'image/svg+xml': { schema: z.string() } } }, ...errorResponses(...SEMANTIC_ERRORS) },
});

const CHART_ROWS = 500;

export function registerSemanticRoutes(app: OpenAPIHono<AppEnv>, semantic: SemanticService, visualizations: VisualizationStore): void {
  app.openapi(exploresRoute, (c) => {
    const principal = requireRole(c, 'analyst');
    const explores = semantic.catalog.visible(principal).map((e) => ({
      name: e.name,
      ...(e.label ? { label: e.label } : {}),
      ...(e.description ? { description: e.description } : {}),
      datasource: e.datasource,
      fields: semantic.catalog.fields(e),
      requiredFilters: e.requiredFilters ?? [],
      parameters: (e.parameters ?? []).map((p) => ({ name: p.name, type: p.type, required: p.required })),
    }));
    return c.json(ok(`${explores.length} explore(s).`, { explores }), 200);
  });

  app.openapi(queryRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const body = c.req.valid('json');
    const run = await semantic.run(principal, body.intent as SemanticIntentT, body);
    return c.json(ok(run.summary, run.data) as never, run.status as 200);
  });

  app.openapi(createVizRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const body = c.req.valid('json');
    const intent = body.intent as SemanticIntentT;
    const run = await semantic.run(principal, intent, { previewRows: CHART_ROWS, materialize: 'auto' });
    const spec = chartSpec(body.chart, run.data.fields, run.data.preview.columns, run.data.preview.rows, body.title);
    const saved = visualizations.save(principal.id, body.title, intent, body.chart);
    const artifactId = run.data.artifact?.decision === 'CREATED' ? (run.data.artifact.id ?? null) : null;
    return c.json(ok(`Saved ${saved.id}: ${run.summary}`, { id: saved.id, title: saved.title, intent, chart: body.chart, spec, artifactId, fields: run.data.fields }) as never, 200);
  });

  app.openapi(getVizRoute, (c) => {
    const principal = requireRole(c, 'analyst');
    const saved = visualizations.get(principal.id, c.req.valid('param').id);
    return c.json(ok('Visualization.', { id: saved.id, title: saved.title, intent: saved.intent, chart: saved.chart, createdAt: saved.createdAt }) as never, 200);
  });

  app.openapi(renderRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const saved = visualizations.get(principal.id, c.req.valid('param').id);
    const parsed = SemanticIntent.safeParse(normalizeIntent(saved.intent));
    if (!parsed.success) throw new SluiceError('SEMANTIC_VALIDATION_ERROR', 'The saved intent no longer fits the intent format.');
    const run = await semantic.run(principal, parsed.data, { previewRows: CHART_ROWS, materialize: 'never' });
    const svg = await renderSvg(chartSpec(saved.chart, run.data.fields, run.data.preview.columns, run.data.preview.rows, saved.title ?? undefined));
    return c.body(svg, 200, { 'content-type': 'image/svg+xml; charset=utf-8' }) as never;
  });
}
