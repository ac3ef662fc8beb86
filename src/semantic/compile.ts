/**
 * Compiles a whole intent, metric or merge, into one SQL statement with its
 * bound values and the id of every result column. A merge is validated as a
 * whole before anything runs: exactly two sources, each a valid metric query
 * on the same datasource; join keys that are dimensions of matching type and
 * grain; and keys that cover every dimension of each source, so the join can
 * never repeat a row (fan-out). Each source becomes one complete CTE; the
 * merge's sorts and limit apply to the merged result only. The SQL is the
 * dialect of the explores' datasource (`dialectOf`), never branched on here.
 */
import type { Principal } from '../auth/principals.ts';
import type { SqlDialect } from '../datasources/driver.ts';
import type { ResolvedField, SemanticCatalog } from './catalog.ts';
import { compileMetricQuery, invalid } from './compile-metric.ts';
import type { SemanticIntentT } from './intent.ts';
import type { FieldKind } from '../vocabulary.ts';

export interface ResultField {
  id: string;
  source: 0 | 1;
  kind: FieldKind;
}

export interface CompiledIntent {
  datasource: string;
  sql: string;
  params: unknown[];
  fields: ResultField[];
}

function grainOf(field: ResolvedField): string | null {
  return field.kind === 'dimension' ? field.grain : null;
}

export function compileIntent(catalog: SemanticCatalog, dialectOf: (datasource: string) => SqlDialect, principal: Principal, intent: SemanticIntentT): CompiledIntent {
  const parameters = intent.parameters ?? {};
  const params: unknown[] = [];
  if (intent.type === 'metric') {
    const c = compileMetricQuery(catalog, dialectOf, principal, intent.query, parameters, params, null);
    return {
      datasource: c.explore.datasource,
      sql: [c.sql, c.orderBy, c.limit].filter(Boolean).join('\n'),
      params,
      fields: [...c.dimensions, ...c.metrics].map((f) => ({ id: f.id, source: 0, kind: f.kind })),
    };
  }
  const { sources, joinOn, joinType } = intent.query;
  if (sources.length !== 2) throw invalid(null, null, `a merge takes exactly two sources for now; got ${sources.length}.`);
  sources.forEach((s, i) => {
    if (s.limit !== undefined) throw invalid(i, null, 'a merge source is always complete: move "limit" to the merge query.');
    if ((s.sorts ?? []).length > 0) throw invalid(i, s.sorts![0]!.field, 'a merge source is not sorted: move "sorts" to the merge query.');
  });
  const compiled = sources.map((s, i) => compileMetricQuery(catalog, dialectOf, principal, s, parameters, params, i));
  const [left, right] = compiled as [(typeof compiled)[0], (typeof compiled)[0]];
  if (left.explore.datasource !== right.explore.datasource) {
    throw invalid(1, null, `explore "${right.explore.name}" is on datasource "${right.explore.datasource}", source 0 on "${left.explore.datasource}"; a merge needs one datasource.`);
  }
  if (joinOn.length === 0) throw invalid(null, null, 'a merge needs at least one joinOn pair of dimensions.');
  for (const pair of joinOn) {
    const l = left.dimensions.find((d) => d.id === pair.left);
    const r = right.dimensions.find((d) => d.id === pair.right);
    if (l === undefined) throw invalid(0, pair.left, `join key "${pair.left}" is not one of source 0's dimensions.`);
    if (r === undefined) throw invalid(1, pair.right, `join key "${pair.right}" is not one of source 1's dimensions.`);
    if (l.type !== r.type) throw invalid(1, pair.right, `join key "${pair.right}" is a ${r.type}, but "${pair.left}" is a ${l.type}; join dimensions of the same type.`);
    const [lg, rg] = [grainOf(l), grainOf(r)];
    if (lg !== rg) {
      throw invalid(1, pair.right, `join key "${pair.right}" has grain ${rg ?? 'none'}, but "${pair.left}" has ${lg ?? 'none'}; use the same time grain on both sides.`);
    }
  }
  for (const d of left.dimensions) {
    if (!joinOn.some((p) => p.left === d.id)) throw invalid(0, d.id, `dimension "${d.id}" is not a join key, so each row of source 1 would repeat for each of its values (fan-out). Add it to joinOn or remove it from source 0.`);
  }
  for (const d of right.dimensions) {
    if (!joinOn.some((p) => p.right === d.id)) throw invalid(1, d.id, `dimension "${d.id}" is not a join key, so each row of source 0 would repeat for each of its values (fan-out). Add it to joinOn or remove it from source 1.`);
  }
  const dialect = dialectOf(left.explore.datasource);
  const quote = (name: string) => dialect.quoteIdentifier(name);
  const [s0, s1] = [quote('s0'), quote('s1')];
  const fields: ResultField[] = [];
  const outputs: string[] = [];
  const taken = new Set<string>();
  const alias = (id: string) => {
    let name = id;
    for (let n = 1; taken.has(name); n++) name = `${id}#${n}`;
    taken.add(name);
    return name;
  };
  const columnOf = new Map<string, string>();
  for (const pair of joinOn) {
    const name = alias(pair.left);
    const l = `${s0}.${quote(pair.left)}`;
    outputs.push(`${joinType === 'full' ? `COALESCE(${l}, ${s1}.${quote(pair.right)})` : l} AS ${quote(name)}`);
    fields.push({ id: pair.left, source: 0, kind: 'dimension' });
    columnOf.set(pair.left, name).set(pair.right, name);
  }
  compiled.forEach((c, i) => {
    for (const m of c.metrics) {
      const name = alias(m.id);
      outputs.push(`${quote(`s${i}`)}.${quote(m.id)} AS ${quote(name)}`);
      fields.push({ id: m.id, source: i as 0 | 1, kind: 'metric' });
      if (!columnOf.has(m.id)) columnOf.set(m.id, name);
    }
  });
  const order = (intent.query.sorts ?? []).map((s) => {
    const column = columnOf.get(s.field);
    if (column === undefined) throw invalid(null, s.field, `sort field "${s.field}" is not a join key or a metric of either source.`);
    return dialect.orderBy(quote(column), s.direction);
  });
  if (order.length === 0) order.push(...joinOn.map((p) => dialect.orderBy(quote(columnOf.get(p.left)!), 'asc')));
  const on = joinOn.map((p) => `${s0}.${quote(p.left)} = ${s1}.${quote(p.right)}`).join(' AND ');
  const sql = [
    `WITH ${s0} AS (\n${left.sql}\n), ${s1} AS (\n${right.sql}\n)`,
    ...mergedRows(dialect, joinType, outputs.join(', '), on, `${s0}.${quote(joinOn[0]!.left)}`),
    `ORDER BY ${order.join(', ')}`,
    intent.query.limit !== undefined ? dialect.limit(intent.query.limit) : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { datasource: left.explore.datasource, sql, params, fields };
}

/**
 * The SELECT and FROM of a merge. An engine without FULL JOIN (MariaDB,
 * MySQL) gets its equivalent: the LEFT JOIN, and the right side's rows that
 * matched nothing (their left key is NULL, since an equality never matches
 * a NULL key), in one derived table the ORDER BY reads by column name.
 */
function mergedRows(dialect: SqlDialect, joinType: string, outputs: string, on: string, leftKey: string): string[] {
  const [s0, s1] = [dialect.quoteIdentifier('s0'), dialect.quoteIdentifier('s1')];
  if (joinType !== 'full' || dialect.fullJoin) return [`SELECT ${outputs}`, `FROM ${s0} ${joinType.toUpperCase()} JOIN ${s1} ON ${on}`];
  return [
    `SELECT * FROM (`,
    `SELECT ${outputs} FROM ${s0} LEFT JOIN ${s1} ON ${on}`,
    'UNION ALL',
    `SELECT ${outputs} FROM ${s0} RIGHT JOIN ${s1} ON ${on} WHERE ${leftKey} IS NULL`,
    `) AS ${dialect.quoteIdentifier('merged')}`,
  ];
}
