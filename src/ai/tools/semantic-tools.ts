/**
 * The semantic layer as tools: list_explores, find_fields, run_query (a
 * metric or merge intent) and generate_visualization. In the agent, fields
 * must be discovered (returned by find_fields) before a query may use them,
 * so the model works from real field ids; validation errors come back as
 * the layer's own actionable messages.
 */
import { z } from 'zod';
import { chartSpec } from '../../semantic/chart-spec.ts';
import { SemanticIntent, type SemanticIntentT } from '../../semantic/intent.ts';
import { Explore } from '../../semantic/model-schema.ts';
import { BadArgumentsError } from './tool-errors.ts';
import { defineTool, type ToolContext } from './tool-types.ts';
import { ArtifactDecision, Chart, Column, Completeness, CutCells, MODEL_ROWS, ResultField, Rows } from './tool-schemas.ts';
import { CHART_ROWS, ChartRows } from '../../contract/charts.ts';
import { FIELD_KINDS } from '../../vocabulary.ts';

const FOUND_FIELDS = 100;

function semanticOf(ctx: ToolContext) {
  if (ctx.semantic === null) throw new BadArgumentsError('No semantic model is loaded on this server.');
  return ctx.semantic;
}

function usedFields(intent: SemanticIntentT): string[] {
  const sources = intent.type === 'metric' ? [intent.query] : intent.query.sources;
  const ids = sources.flatMap((s) => [...s.dimensions, ...s.metrics, ...(s.filters ?? []).map((f) => f.field), ...(s.sorts ?? []).map((f) => f.field)]);
  if (intent.type === 'merge') ids.push(...intent.query.joinOn.flatMap((j) => [j.left, j.right]), ...(intent.query.sorts ?? []).map((s) => s.field));
  return [...new Set(ids)];
}

function requireDiscovered(ctx: ToolContext, intent: SemanticIntentT): void {
  const discovered = ctx.discoveredFields;
  if (discovered === null) return;
  const unknown = usedFields(intent).filter((id) => !discovered.has(id));
  if (unknown.length > 0) throw new BadArgumentsError(`Call find_fields first: these field ids were not discovered in this conversation: ${unknown.join(', ')}.`);
}

const semanticTool = { role: 'analyst', surfaces: ['agent', 'mcp'], usesDatasource: false, needsSemantic: true } as const;

const ExploreSummary = z.strictObject({
  name: z.string(),
  label: z.string().nullable(),
  description: z.string().nullable(),
  requiredFilters: Explore.shape.requiredFilters.unwrap(),
  parameters: Explore.shape.parameters.unwrap(),
});

export const listExploresTool = defineTool({
  ...semanticTool,
  name: 'list_explores',
  description: 'List the semantic explores (curated tables with dimensions and metrics) you may use. Use find_fields to get their field ids.',
  input: z.strictObject({}),
  output: z.strictObject({ explores: z.array(ExploreSummary) }),
  list: 'explores',
  async run(_input, ctx) {
    const explores = semanticOf(ctx).catalog.visible(ctx.principal);
    return { explores: explores.map((e) => ({ name: e.name, label: e.label ?? null, description: e.description ?? null, requiredFilters: e.requiredFilters ?? [], parameters: e.parameters ?? [] })) };
  },
});

const FieldInfo = z.strictObject({ id: z.string(), kind: z.enum(FIELD_KINDS), type: z.string(), label: z.string().optional(), description: z.string().optional() });

export const findFieldsTool = defineTool({
  ...semanticTool,
  name: 'find_fields',
  description: 'Find dimension and metric field ids by words (matched against ids, labels and descriptions), optionally within one explore. Only ids returned here may be used in run_query.',
  input: z.strictObject({ query: z.string().max(1000), explore: z.string().min(1).max(100).optional() }),
  output: z.strictObject({ fields: z.array(FieldInfo), matched: z.boolean(), note: z.string().optional() }),
  list: 'fields',
  async run(input, ctx) {
    const semantic = semanticOf(ctx);
    const words = input.query.toLowerCase().split(/[^a-z0-9_]+/).filter(Boolean);
    const explores = input.explore === undefined ? semantic.catalog.visible(ctx.principal) : [semantic.catalog.explore(ctx.principal, input.explore, null)];
    const fields = explores.flatMap((e) => semantic.catalog.fields(e));
    const matches = fields.filter((f) => {
      const text = `${f.id} ${f.label ?? ''} ${f.description ?? ''}`.toLowerCase();
      return words.length === 0 || words.some((w) => text.includes(w));
    });
    const shown = (matches.length > 0 ? matches : fields).slice(0, FOUND_FIELDS);
    for (const f of shown) ctx.discoveredFields?.add(f.id);
    return matches.length > 0 ? { fields: shown, matched: true } : { fields: shown, matched: false, note: 'Nothing matched those words; these are all fields.' };
  },
});

const INTENT_HELP =
  '{"type":"metric","query":{explore, dimensions, metrics, filters?, sorts?, limit?}} or {"type":"merge","query":{sources:[two metric queries], joinOn:[{left,right}], joinType?, sorts?, limit?}, parameters?}';

export const runQueryTool = defineTool({
  ...semanticTool,
  name: 'run_query',
  description: `Run a semantic intent: ${INTENT_HELP}. Returns at most ${MODEL_ROWS} rows, completeness and an artifact id for the rest.`,
  input: z.strictObject({ intent: SemanticIntent }),
  output: z.strictObject({
    queryId: z.string().describe('The query, as POST /api/semantic/query answers it: GET /api/queries/{queryId} shows it again.'),
    fields: z.array(ResultField),
    columns: z.array(Column),
    rows: Rows,
    cutCells: CutCells,
    completeness: Completeness,
    artifact: ArtifactDecision.nullable(),
    summary: z.string(),
  }),
  list: 'rows',
  async run(input, ctx) {
    requireDiscovered(ctx, input.intent);
    const run = await semanticOf(ctx).run(ctx.principal, input.intent, { previewRows: MODEL_ROWS, sessionId: ctx.sessionId, waitMs: Math.max(0, ctx.deadline - Date.now()), onTimeout: 'cancel' });
    const artifact = run.data.artifact;
    if (artifact?.decision === 'CREATED' && artifact.id) ctx.artifacts.push(artifact.id);
    const { queryId, fields, preview, completeness } = run.data;
    return { queryId, fields, columns: preview.columns, rows: preview.rows, cutCells: preview.cutCells, completeness, artifact, summary: run.summary };
  },
});

export const generateVisualizationTool = defineTool({
  ...semanticTool,
  name: 'generate_visualization',
  description: `Save a chart of a semantic intent: chart {type: table|bar|line|area|scatter, x?, y?: [metric ids], series?}. Returns the visualization id, the path of its SVG rendering, and how many rows it draws (drawnRows, at most ${CHART_ROWS}) of the result's totalRows.`,
  input: z.strictObject({ intent: SemanticIntent, chart: Chart, title: z.string().min(1).max(200).optional() }),
  output: z.strictObject({ id: z.string(), render: z.string(), ...ChartRows }),
  list: null,
  async run(input, ctx) {
    requireDiscovered(ctx, input.intent);
    const run = await semanticOf(ctx).run(ctx.principal, input.intent, { previewRows: CHART_ROWS, waitMs: Math.max(0, ctx.deadline - Date.now()), onTimeout: 'cancel' });
    // Built once here so an invalid chart is refused before anything is saved.
    chartSpec(input.chart, run.data.fields, run.data.preview.columns, run.data.preview.rows, input.title);
    if (ctx.visualizations === null) throw new BadArgumentsError('This server keeps no visualizations.');
    const saved = await ctx.visualizations.save(ctx.principal.id, input.title, input.intent, input.chart);
    return { id: saved.id, render: `/api/semantic/visualizations/${saved.id}/render.svg`, drawnRows: run.data.preview.rows.length, totalRows: run.data.completeness.totalRows };
  },
});
