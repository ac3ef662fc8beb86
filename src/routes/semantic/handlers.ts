/** Handlers of /api/semantic (analyst role and up): explores, metric and merge queries, and saved visualizations. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import { chartSpec, renderSvg } from '../../semantic/chart-spec.ts';
import { normalizeIntent, SemanticIntent, type SemanticIntentT } from '../../semantic/intent.ts';
import type { SemanticService } from '../../semantic/semantic-service.ts';
import type { VisualizationStore } from '../../semantic/visualization-store.ts';
import { SluiceError } from '../../errors.ts';
import { ok } from '../common/envelope.ts';
import { CHART_ROWS } from '../../contract/charts.ts';
import { createVizRoute, deleteVizRoute, exploresRoute, getVizRoute, listVizRoute, queryRoute, renderRoute } from './routes.ts';

const VISUALIZATION_PAGE = 50;

/** What the summary adds when the chart draws only the first rows of the result. */
function drawnNote(drawnRows: number, totalRows: number | null): string {
  if (totalRows === drawnRows) return '';
  return ` The chart draws the first ${drawnRows} of ${totalRows === null ? 'an unknown number of' : totalRows} rows.`;
}

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
    return c.json(ok(run.summary, run.data), run.status);
  });

  app.openapi(createVizRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const body = c.req.valid('json');
    const intent = body.intent as SemanticIntentT;
    const run = await semantic.run(principal, intent, { previewRows: CHART_ROWS, materialize: 'auto' });
    const spec = chartSpec(body.chart, run.data.fields, run.data.preview.columns, run.data.preview.rows, body.title);
    const saved = await visualizations.save(principal.id, body.title, intent, body.chart);
    const artifactId = run.data.artifact?.decision === 'CREATED' ? (run.data.artifact.id ?? null) : null;
    const drawnRows = run.data.preview.rows.length;
    const totalRows = run.data.completeness.totalRows;
    const data = { id: saved.id, title: saved.title, intent, chart: body.chart, spec, artifactId, fields: run.data.fields, drawnRows, totalRows };
    return c.json(ok(`Saved ${saved.id}: ${run.summary}${drawnNote(drawnRows, totalRows)}`, data), 200);
  });

  app.openapi(listVizRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const q = c.req.valid('query');
    const page = await visualizations.list(principal.id, q.limit ?? VISUALIZATION_PAGE, q.cursor);
    const count = page.visualizations.length;
    return c.json(ok(`${count} visualization(s), newest first${page.nextCursor === null ? '' : '; more follow (nextCursor)'}.`, page), 200);
  });

  app.openapi(deleteVizRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const id = c.req.valid('param').id;
    await visualizations.delete(principal.id, id);
    return c.json(ok(`Visualization ${id} is deleted.`, { id, deleted: true }), 200);
  });

  app.openapi(getVizRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const saved = await visualizations.get(principal.id, c.req.valid('param').id);
    return c.json(ok('Visualization.', { id: saved.id, title: saved.title, intent: saved.intent, chart: saved.chart, createdAt: saved.createdAt }), 200);
  });

  app.openapi(renderRoute, async (c) => {
    const principal = requireRole(c, 'analyst');
    const saved = await visualizations.get(principal.id, c.req.valid('param').id);
    const parsed = SemanticIntent.safeParse(normalizeIntent(saved.intent));
    if (!parsed.success) throw new SluiceError('SEMANTIC_VALIDATION_ERROR', 'The saved intent no longer fits the intent format.');
    const run = await semantic.run(principal, parsed.data, { previewRows: CHART_ROWS, materialize: 'never' });
    const svg = await renderSvg(chartSpec(saved.chart, run.data.fields, run.data.preview.columns, run.data.preview.rows, saved.title ?? undefined));
    return c.body(svg, 200, { 'content-type': 'image/svg+xml; charset=utf-8' });
  });
}
