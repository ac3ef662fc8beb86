/**
 * Compiles one metric query into SQL over one explore, in the dialect of
 * the explore's datasource: identifiers quoted, every value (filters and
 * explore parameters) bound as a parameter, never spliced. Validation comes first and names the source and the field,
 * so an invalid intent never reaches the database.
 */
import type { Principal } from '../auth/principals.ts';
import { SluiceError } from '../errors.ts';
import type { SemanticValueType, SqlDialect } from '../datasources/driver.ts';
import type { ResolvedField, SemanticCatalog } from './catalog.ts';
import type { MetricQueryT } from './intent.ts';
import type { ExploreDef } from './model-schema.ts';
import { isListFilterOp, isValuelessFilterOp } from '../vocabulary.ts';

export interface CompiledSource {
  explore: ExploreDef;
  sql: string;
  dimensions: ResolvedField[];
  metrics: ResolvedField[];
}

export function invalid(source: number | null, field: string | null, message: string, explore?: string): SluiceError {
  return new SluiceError('SEMANTIC_VALIDATION_ERROR', `${source === null ? '' : `Source ${source}: `}${message}`, { source, field, ...(explore ? { explore } : {}) });
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

function checkValue(source: number | null, field: ResolvedField, value: unknown): void {
  const ok =
    value === null ||
    (field.type === 'number' && (typeof value === 'number' || (typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value)))) ||
    (field.type === 'boolean' && typeof value === 'boolean') ||
    ((field.type === 'string' || field.type === 'date' || field.type === 'timestamp') && typeof value === 'string');
  if (!ok) throw invalid(source, field.id, `filter value for "${field.id}" must be a ${field.type}.`);
}

export function compileMetricQuery(
  catalog: SemanticCatalog,
  dialectOf: (datasource: string) => SqlDialect,
  principal: Principal,
  query: MetricQueryT,
  parameters: Record<string, unknown>,
  params: unknown[],
  source: number | null,
): CompiledSource & { orderBy: string; limit: string } {
  const explore = catalog.explore(principal, query.explore, source);
  const dialect = dialectOf(explore.datasource);
  const quote = (name: string) => dialect.quoteIdentifier(name);
  const resolve = (id: string) => catalog.resolve(explore, id, source);
  const dimensions = query.dimensions.map(resolve);
  const metrics = query.metrics.map(resolve);
  for (const d of dimensions) if (d.kind !== 'dimension') throw invalid(source, d.id, `"${d.id}" is a metric; list it under metrics.`, explore.name);
  for (const m of metrics) if (m.kind !== 'metric') throw invalid(source, m.id, `"${m.id}" is a dimension; list it under dimensions.`, explore.name);
  if (dimensions.length + metrics.length === 0) throw invalid(source, null, 'select at least one dimension or metric.', explore.name);
  const bind = (value: unknown, type: SemanticValueType) => {
    params.push(value);
    return dialect.parameter(params.length, type);
  };
  for (const required of explore.requiredFilters ?? []) {
    if (!(query.filters ?? []).some((f) => f.field === required.field && f.op === required.op)) {
      throw invalid(source, required.field, `explore "${explore.name}" requires a filter on "${required.field}" with op "${required.op}".`, explore.name);
    }
  }
  const where: string[] = [];
  const having: string[] = [];
  for (const filter of query.filters ?? []) {
    const field = resolve(filter.field);
    const expr = columnExpression(dialect, field);
    const type = field.type as SemanticValueType;
    const list = Array.isArray(filter.value) ? (filter.value as unknown[]) : null;
    let condition: string;
    if (isValuelessFilterOp(filter.op)) condition = `${expr} IS ${filter.op === 'is_null' ? '' : 'NOT '}NULL`;
    else if (isListFilterOp(filter.op)) {
      if (list === null || list.length === 0 || (filter.op === 'between' && list.length !== 2)) throw invalid(source, field.id, `filter "${filter.op}" on "${field.id}" needs ${filter.op === 'between' ? '[low, high]' : 'a non-empty array'}.`, explore.name);
      list.forEach((v) => checkValue(source, field, v));
      condition =
        filter.op === 'between'
          ? `${expr} BETWEEN ${bind(list[0], type)} AND ${bind(list[1], type)}`
          : `${expr} ${filter.op === 'in' ? '' : 'NOT '}IN (${list.map((v) => bind(v, type)).join(', ')})`;
    } else if (filter.op === 'contains' || filter.op === 'starts_with') {
      if (typeof filter.value !== 'string') throw invalid(source, field.id, `filter "${filter.op}" on "${field.id}" needs a string.`, explore.name);
      condition = filter.op === 'contains' ? dialect.contains(expr, bind(filter.value, 'string')) : dialect.startsWith(expr, bind(filter.value, 'string'));
    } else {
      if (filter.value === undefined || list !== null) throw invalid(source, field.id, `filter "${filter.op}" on "${field.id}" needs one value.`, explore.name);
      checkValue(source, field, filter.value);
      const op = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' }[filter.op];
      condition = `${expr} ${op} ${bind(filter.value, type)}`;
    }
    (field.kind === 'metric' ? having : where).push(condition);
  }
  let relation: string;
  if (explore.table !== undefined) relation = dialect.quoteRelation(explore.table);
  else {
    const declared = new Map((explore.parameters ?? []).map((p) => [p.name, p]));
    relation = `(${explore.sql!.replace(/\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g, (_, name: string) => {
      const p = declared.get(name)!;
      const value = parameters[name];
      if (value === undefined || value === null) {
        if (p.required) throw invalid(source, name, `explore "${explore.name}" needs the parameter "${name}" (${p.type}) in "parameters".`, explore.name);
        return 'NULL';
      }
      return bind(value, p.type as SemanticValueType);
    })})`;
  }
  for (const p of explore.parameters ?? []) {
    if (p.required && (parameters[p.name] === undefined || parameters[p.name] === null)) {
      throw invalid(source, p.name, `explore "${explore.name}" needs the parameter "${p.name}" (${p.type}) in "parameters".`, explore.name);
    }
  }
  const selected = [...dimensions, ...metrics];
  const outputs = selected.map((f) => `${columnExpression(dialect, f)} AS ${quote(f.id)}`);
  const order = (query.sorts ?? []).map((s) => {
    if (!selected.some((f) => f.id === s.field)) throw invalid(source, s.field, `sort field "${s.field}" is not among this query's dimensions or metrics.`, explore.name);
    return dialect.orderBy(quote(s.field), s.direction);
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
