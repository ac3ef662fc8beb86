/**
 * The semantic layer as agent tools: list_explores, find_fields, run_query
 * (metric or merge intent) and generate_visualization. Fields must be
 * discovered (returned by find_fields) before a query may use them, so the
 * model works from real field ids; validation errors come back as the
 * layer's own actionable messages.
 */
import { SemanticIntent, normalizeIntent } from '../../semantic/intent.ts';
import { chartSpec } from '../../semantic/chart-spec.ts';
import { MODEL_ROWS } from './query-tools.ts';
import { stringArg, ToolInputError, type AgentTool, type ToolContext } from './tool-types.ts';

function semanticOf(ctx: ToolContext) {
  if (ctx.semantic === null) throw new ToolInputError('No semantic model is loaded on this server.');
  return ctx.semantic;
}

function parseIntent(raw: unknown) {
  const parsed = SemanticIntent.safeParse(normalizeIntent(raw));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ToolInputError(`"intent" is not a valid intent at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

function usedFields(intent: ReturnType<typeof parseIntent>): string[] {
  const sources = intent.type === 'metric' ? [intent.query] : intent.query.sources;
  const ids = sources.flatMap((s) => [...s.dimensions, ...s.metrics, ...(s.filters ?? []).map((f) => f.field), ...(s.sorts ?? []).map((f) => f.field)]);
  if (intent.type === 'merge') ids.push(...intent.query.joinOn.flatMap((j) => [j.left, j.right]), ...(intent.query.sorts ?? []).map((s) => s.field));
  return [...new Set(ids)];
}

function requireDiscovered(ctx: ToolContext, intent: ReturnType<typeof parseIntent>): void {
  const discovered = ctx.discoveredFields;
  if (discovered === null) return;
  const unknown = usedFields(intent).filter((id) => !discovered.has(id));
  if (unknown.length > 0) throw new ToolInputError(`Call find_fields first: these field ids were not discovered in this conversation: ${unknown.join(', ')}.`);
}

export const listExploresTool: AgentTool = {
  name: 'list_explores',
  description: 'List the semantic explores (curated tables with dimensions and metrics) you may use. Use find_fields to get their field ids.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async run(_input, ctx) {
    return semanticOf(ctx)
      .catalog.visible(ctx.principal)
      .map((e) => ({ name: e.name, label: e.label ?? null, description: e.description ?? null, requiredFilters: e.requiredFilters ?? [], parameters: e.parameters ?? [] }));
  },
};

export const findFieldsTool: AgentTool = {
  name: 'find_fields',
  description: 'Find dimension and metric field ids by words (matched against ids, labels and descriptions), optionally within one explore. Only ids returned here may be used in run_query.',
  parameters: { type: 'object', properties: { query: { type: 'string' }, explore: { type: 'string' } }, required: ['query'], additionalProperties: false },
  async run(input, ctx) {
    const semantic = semanticOf(ctx);
    const words = stringArg(input, 'query')!.toLowerCase().split(/[^a-z0-9_]+/).filter(Boolean);
    const only = stringArg(input, 'explore', false);
    const explores = only === undefined ? semantic.catalog.visible(ctx.principal) : [semantic.catalog.explore(ctx.principal, only, null)];
    const fields = explores.flatMap((e) => semantic.catalog.fields(e));
    const matches = fields.filter((f) => {
      const text = `${f.id} ${f.label ?? ''} ${f.description ?? ''}`.toLowerCase();
      return words.length === 0 || words.some((w) => text.includes(w));
    });
    const shown = (matches.length > 0 ? matches : fields).slice(0, 100);
    for (const f of shown) ctx.discoveredFields?.add(f.id);
    return { fields: shown, matched: matches.length > 0, note: matches.length > 0 ? undefined : 'Nothing matched those words; these are all fields.' };
  },
};

export const runQueryTool: AgentTool = {
  name: 'run_query',
  description: 'Run a semantic intent: {"type":"metric","query":{explore, dimensions, metrics, filters?, sorts?, limit?}} or {"type":"merge","query":{sources:[two metric queries], joinOn:[{left,right}], joinType?, sorts?, limit?}, parameters?}. Returns at most 50 rows, completeness and an artifact id for the rest.',
  parameters: { type: 'object', properties: { intent: { type: 'object' } }, required: ['intent'], additionalProperties: false },
  async run(input, ctx) {
    const semantic = semanticOf(ctx);
    const intent = parseIntent(input.intent);
    requireDiscovered(ctx, intent);
    const run = await semantic.run(ctx.principal, intent, { previewRows: MODEL_ROWS, sessionId: ctx.sessionId, waitMs: Math.max(0, ctx.deadline - Date.now()) });
    const artifact = run.data.artifact;
    if (artifact?.decision === 'CREATED' && artifact.id) ctx.artifacts.push(artifact.id);
    return { fields: run.data.fields, columns: run.data.preview.columns, rows: run.data.preview.rows, completeness: run.data.completeness, artifact, summary: run.summary };
  },
};

export const generateVisualizationTool: AgentTool = {
  name: 'generate_visualization',
  description: 'Save a chart of a semantic intent: chart {type: table|bar|line|area|scatter, x?, y?: [metric ids], series?}. Returns the visualization id and the path of its SVG rendering.',
  parameters: {
    type: 'object',
    properties: { intent: { type: 'object' }, chart: { type: 'object' }, title: { type: 'string' } },
    required: ['intent', 'chart'],
    additionalProperties: false,
  },
  async run(input, ctx) {
    const semantic = semanticOf(ctx);
    const intent = parseIntent(input.intent);
    requireDiscovered(ctx, intent);
    const chart = input.chart as { type?: unknown };
    if (chart === null || typeof chart !== 'object' || !['table', 'bar', 'line', 'area', 'scatter'].includes(chart.type as string)) {
      throw new ToolInputError('"chart.type" must be one of table, bar, line, area, scatter.');
    }
    const title = stringArg(input, 'title', false);
    const run = await semantic.run(ctx.principal, intent, { previewRows: 500, waitMs: Math.max(0, ctx.deadline - Date.now()) });
    // Built once here so an invalid chart is refused before anything is saved.
    chartSpec(chart as never, run.data.fields, run.data.preview.columns, run.data.preview.rows, title);
    const saved = ctx.visualizations!.save(ctx.principal.id, title, intent, chart as never);
    return { id: saved.id, render: `/api/semantic/visualizations/${saved.id}/render.svg`, rows: run.data.preview.rows.length };
  },
};
