/**
 * Compiles one metric query into SQL over one explore, in the dialect of
 * the explore's datasource: identifiers quoted, every value (filters and
 * explore parameters) bound as a parameter, never spliced. Validation comes
 * first and names the source and the field; every error found goes to the
 * intent's SemanticIssues, so an invalid intent reports them all and never
 * reaches the database.
 */
import type { Principal } from '../auth/principals.ts';
import type { SemanticValueType, SqlDialect } from '../datasources/driver.ts';
import type { ResolvedField, SemanticCatalog } from './catalog.ts';
import type { MetricQueryT } from './intent.ts';
import type { SemanticIssues } from './issues.ts';
import type { ExploreDef } from './model-schema.ts';
import { isListFilterOp, isValuelessFilterOp } from '../vocabulary.ts';

export interface CompiledSource {
  explore: ExploreDef;
  sql: string;
  dimensions: ResolvedField[];
  metrics: ResolvedField[];
}

/** What compiling an intent shares across its sources: the bound values and the errors found. */
export interface CompileContext {
  catalog: SemanticCatalog;
  dialectOf: (datasource: string) => SqlDialect;
  principal: Principal;
  parameters: Record<string, unknown>;
  params: unknown[];
  issues: SemanticIssues;
}

/** One source being compiled: its explore, dialect and index (null for a metric intent). */
interface Scope {
  ctx: CompileContext;
  explore: ExploreDef;
  dialect: SqlDialect;
  source: number | null;
  bind: (value: unknown, type: SemanticValueType) => string;
  resolve: (id: string) => ResolvedField | null;
}

function columnExpression(dialect: SqlDialect, field: ResolvedField): string {
  const base = field.def.sql !== undefined ? `(${field.def.sql})` : `${dialect.quoteIdentifier('e')}.${dialect.quoteIdentifier(field.def.name)}`;
  if (field.kind === 'metric') {
    const def = field.def;
    switch (def.type) {
      case 'count':
        return def.sql === undefined ? 'count(*)' : `count(${base})`;
      case 'count_distinct':
        return `count(DISTINCT ${base})`;
      default:
        return `${def.type}(${base})`;
    }
  }
  if (field.grain === null) return base;
  return dialect.dateTrunc(field.grain, base, field.type === 'date' ? 'date' : 'timestamp');
}

function valueFits(field: ResolvedField, value: unknown): boolean {
  return (
    value === null ||
    (field.type === 'number' && (typeof value === 'number' || (typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value)))) ||
    (field.type === 'boolean' && typeof value === 'boolean') ||
    ((field.type === 'string' || field.type === 'date' || field.type === 'timestamp') && typeof value === 'string')
  );
}

/** One filter as a condition, or null (and an error recorded) when it is invalid. */
function filterCondition(scope: Scope, filter: NonNullable<MetricQueryT['filters']>[number]): { condition: string; field: ResolvedField } | null {
  const field = scope.resolve(filter.field);
  if (field === null) return null;
  const bad = (message: string) => {
    scope.ctx.issues.add('bad_filter', scope.source, field.id, message, scope.explore.name);
    return null;
  };
  const expr = columnExpression(scope.dialect, field);
  const type = field.type as SemanticValueType;
  const list = Array.isArray(filter.value) ? (filter.value as unknown[]) : null;
  const wrongType = `filter value for "${field.id}" must be a ${field.type}.`;
  if (isValuelessFilterOp(filter.op)) return { field, condition: `${expr} IS ${filter.op === 'is_null' ? '' : 'NOT '}NULL` };
  if (isListFilterOp(filter.op)) {
    if (list === null || list.length === 0 || (filter.op === 'between' && list.length !== 2)) return bad(`filter "${filter.op}" on "${field.id}" needs ${filter.op === 'between' ? '[low, high]' : 'a non-empty array'}.`);
    if (!list.every((v) => valueFits(field, v))) return bad(wrongType);
    const condition =
      filter.op === 'between'
        ? `${expr} BETWEEN ${scope.bind(list[0], type)} AND ${scope.bind(list[1], type)}`
        : `${expr} ${filter.op === 'in' ? '' : 'NOT '}IN (${list.map((v) => scope.bind(v, type)).join(', ')})`;
    return { field, condition };
  }
  if (filter.op === 'contains' || filter.op === 'starts_with') {
    if (typeof filter.value !== 'string') return bad(`filter "${filter.op}" on "${field.id}" needs a string.`);
    const needle = scope.bind(filter.value, 'string');
    return { field, condition: filter.op === 'contains' ? scope.dialect.contains(expr, needle) : scope.dialect.startsWith(expr, needle) };
  }
  if (filter.value === undefined || list !== null) return bad(`filter "${filter.op}" on "${field.id}" needs one value.`);
  if (!valueFits(field, filter.value)) return bad(wrongType);
  const op = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' }[filter.op];
  return { field, condition: `${expr} ${op} ${scope.bind(filter.value, type)}` };
}

/** The explore's table, or its SQL with the parameters bound (a missing required one is an error). */
function relationOf(scope: Scope): string {
  const { explore, dialect, ctx, source } = scope;
  for (const p of explore.parameters ?? []) {
    if (p.required && (ctx.parameters[p.name] === undefined || ctx.parameters[p.name] === null)) {
      ctx.issues.add('missing_parameter', source, p.name, `explore "${explore.name}" needs the parameter "${p.name}" (${p.type}) in "parameters".`, explore.name);
    }
  }
  if (explore.table !== undefined) return dialect.quoteRelation(explore.table);
  const declared = new Map((explore.parameters ?? []).map((p) => [p.name, p]));
  return `(${explore.sql!.replace(/\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g, (_, name: string) => {
    const value = ctx.parameters[name];
    return value === undefined || value === null ? 'NULL' : scope.bind(value, declared.get(name)!.type as SemanticValueType);
  })})`;
}

/** The selected fields, each of the kind its list says; the wrong ones are recorded and left out. */
function selectedFields(scope: Scope, query: MetricQueryT): { dimensions: ResolvedField[]; metrics: ResolvedField[] } {
  const { issues } = scope.ctx;
  const pick = (ids: string[], kind: 'dimension' | 'metric') =>
    ids.flatMap((id) => {
      const field = scope.resolve(id);
      if (field === null) return [];
      if (field.kind === kind) return [field];
      const message = kind === 'dimension' ? `"${id}" is a metric; list it under metrics.` : `"${id}" is a dimension; list it under dimensions.`;
      issues.add('wrong_kind', scope.source, id, message, scope.explore.name);
      return [];
    });
  const dimensions = pick(query.dimensions, 'dimension');
  const metrics = pick(query.metrics, 'metric');
  if (query.dimensions.length + query.metrics.length === 0) issues.add('empty_query', scope.source, null, 'select at least one dimension or metric.', scope.explore.name);
  return { dimensions, metrics };
}

export function compileMetricQuery(ctx: CompileContext, query: MetricQueryT, source: number | null): CompiledSource & { orderBy: string; limit: string } {
  const explore = ctx.catalog.explore(ctx.principal, query.explore, source);
  const dialect = ctx.dialectOf(explore.datasource);
  const quote = (name: string) => dialect.quoteIdentifier(name);
  const scope: Scope = {
    ctx,
    explore,
    dialect,
    source,
    bind: (value, type) => {
      ctx.params.push(value);
      return dialect.parameter(ctx.params.length, type);
    },
    resolve: (id) => {
      const found = ctx.catalog.resolve(explore, id);
      if (!('why' in found)) return found;
      ctx.issues.add('unknown_field', source, id, found.why, explore.name);
      return null;
    },
  };
  const { dimensions, metrics } = selectedFields(scope, query);
  for (const required of explore.requiredFilters ?? []) {
    if (!(query.filters ?? []).some((f) => f.field === required.field && f.op === required.op)) {
      ctx.issues.add('missing_filter', source, required.field, `explore "${explore.name}" requires a filter on "${required.field}" with op "${required.op}".`, explore.name);
    }
  }
  const where: string[] = [];
  const having: string[] = [];
  for (const filter of query.filters ?? []) {
    const found = filterCondition(scope, filter);
    if (found !== null) (found.field.kind === 'metric' ? having : where).push(found.condition);
  }
  const relation = relationOf(scope);
  const selected = [...dimensions, ...metrics];
  const outputs = selected.map((f) => `${columnExpression(dialect, f)} AS ${quote(f.id)}`);
  const order = (query.sorts ?? []).flatMap((s) => {
    if (selected.some((f) => f.id === s.field)) return [dialect.orderBy(quote(s.field), s.direction)];
    ctx.issues.add('bad_sort', source, s.field, `sort field "${s.field}" is not among this query's dimensions or metrics.`, explore.name);
    return [];
  });
  const sql = [
    `SELECT ${outputs.join(', ')}`,
    `FROM ${relation} AS ${quote('e')}`,
    where.length ? `WHERE ${where.join(' AND ')}` : '',
    dimensions.length ? `GROUP BY ${dimensions.map((_, i) => i + 1).join(', ')}` : '',
    having.length ? `HAVING ${having.join(' AND ')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return {
    explore,
    sql,
    dimensions,
    metrics,
    orderBy: order.length ? `ORDER BY ${order.join(', ')}` : dimensions.length ? `ORDER BY ${dimensions.map((_, i) => i + 1).join(', ')}` : '',
    limit: query.limit !== undefined ? dialect.limit(query.limit) : '',
  };
}
