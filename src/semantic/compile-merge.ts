/**
 * Compiles a merge intent: two metric queries on one datasource, joined on
 * their keys, into one statement with one complete CTE per source (s0, s1),
 * each held to SLUICE_MERGE_SOURCE_ROWS by the statement itself
 * (source-row-cap.ts): a merge executes once, and fails rather than trims.
 * The whole intent is validated first and every error is reported at once.
 * Table calculations and the merge's sorts and limit apply to the merged
 * rows only. The SQL is the datasource's dialect, never branched on here.
 */
import type { SemanticValueType, SqlDialect } from '../datasources/driver.ts';
import type { CompiledIntent, ResultField } from './compile.ts';
import { compileMetricQuery, type CompileContext } from './compile-metric.ts';
import type { SemanticIntentT } from './intent.ts';
import { joinCondition, joinedRows, keyColumn, keyPairs } from './merge-join.ts';
import { cappedSource, guardRow } from './source-row-cap.ts';
import { compileCalculation } from './table-calculation.ts';

type MergeQuery = Extract<SemanticIntentT, { type: 'merge' }>['query'];

const CALCULATION_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export function compileMerge(ctx: CompileContext, query: MergeQuery, mergeSourceRows: number): CompiledIntent {
  const { issues } = ctx;
  const { sources, joinOn, joinType } = query;
  if (sources.length !== 2) issues.add('merge_shape', null, null, `a merge takes exactly two sources for now; got ${sources.length}.`);
  sources.forEach((s, i) => {
    if (s.limit !== undefined) issues.add('merge_shape', i, null, 'a merge source is always complete: move "limit" to the merge query.');
    if ((s.sorts ?? []).length > 0) issues.add('merge_shape', i, s.sorts![0]!.field, 'a merge source is not sorted: move "sorts" to the merge query.');
  });
  const compiled = sources.map((s, i) => compileMetricQuery(ctx, { ...s, sorts: [] }, i));
  const [left, right] = compiled;
  if (left === undefined || right === undefined || compiled.length !== 2) {
    issues.throwIfAny();
    throw new Error('unreachable: a merge without two sources was not refused');
  }
  if (left.explore.datasource !== right.explore.datasource) {
    issues.add('datasource_mismatch', 1, null, `explore "${right.explore.name}" is on datasource "${right.explore.datasource}", source 0 on "${left.explore.datasource}"; a merge needs one datasource.`);
  }
  const pairs = keyPairs(left, right, joinOn, issues);
  const dialect = ctx.dialectOf(left.explore.datasource);
  const quote = (name: string) => dialect.quoteIdentifier(name);
  const fields: ResultField[] = [];
  const outputs: string[] = [];
  /** The merged result's columns, in order. */
  const names: string[] = [];
  const columnOf = new Map<string, string>();
  const taken = new Set<string>();
  const column = (id: string) => {
    let name = id;
    for (let n = 1; taken.has(name); n++) name = `${id}#${n}`;
    taken.add(name);
    columnOf.set(name, name);
    if (!columnOf.has(id)) columnOf.set(id, name);
    return name;
  };
  for (const pair of pairs) {
    const name = column(pair.left.id);
    const [l, r] = [keyColumn(dialect, pair, 0), keyColumn(dialect, pair, 1)];
    outputs.push(`${joinType === 'full' ? `COALESCE(${l}, ${r})` : l} AS ${quote(name)}`);
    names.push(name);
    fields.push({ id: pair.left.id, source: 0, kind: 'dimension' });
    if (!columnOf.has(pair.right.id)) columnOf.set(pair.right.id, name);
  }
  compiled.forEach((c, i) => {
    for (const m of c.metrics) {
      const name = column(m.id);
      outputs.push(`${quote(`s${i}`)}.${quote(m.id)} AS ${quote(name)}`);
      names.push(name);
      fields.push({ id: m.id, source: i as 0 | 1, kind: 'metric' });
    }
  });
  const calculations = (query.tableCalculations ?? []).flatMap((calc) => {
    const fail = (why: string) => {
      issues.add('bad_calculation', null, calc.name, `table calculation "${calc.name}": ${why}`);
      return [];
    };
    if (!CALCULATION_NAME.test(calc.name)) return fail('a name is a lowercase letter, then up to 62 lowercase letters, digits or underscores.');
    if (taken.has(calc.name)) return fail('the name is already a column of the merged result.');
    const compiledCalc = compileCalculation(calc.expression, (id) => {
      const name = columnOf.get(id);
      return name === undefined || (query.tableCalculations ?? []).some((c) => c.name === id) ? null : quote(name);
    });
    if ('why' in compiledCalc) return fail(compiledCalc.why);
    fields.push({ id: column(calc.name), kind: 'calculation' });
    names.push(calc.name);
    return [`${compiledCalc.sql} AS ${quote(calc.name)}`];
  });
  const order = (query.sorts ?? []).flatMap((s) => {
    const name = columnOf.get(s.field);
    if (name !== undefined) return [dialect.orderBy(quote(name), s.direction)];
    issues.add('bad_sort', null, s.field, `sort field "${s.field}" is not a column of the merged result (a join key, a metric of either source, or a table calculation).`);
    return [];
  });
  issues.throwIfAny();
  if (order.length === 0) order.push(...pairs.map((p) => dialect.orderBy(quote(columnOf.get(p.left.id)!), 'asc')));
  const bind = (value: unknown, type: SemanticValueType) => {
    ctx.params.push(value);
    return dialect.parameter(ctx.params.length, type);
  };
  const merged = quote('merged');
  let rows = joinedRows(dialect, joinType, outputs.join(', '), () => joinCondition(dialect, pairs, bind));
  if (calculations.length > 0) rows = `SELECT ${merged}.*, ${calculations.join(', ')} FROM (\n${rows}\n) AS ${merged}`;
  const sql = mergeStatement(dialect, [left.sql, right.sql], rows, names, mergeSourceRows, [`ORDER BY ${order.join(', ')}`, query.limit !== undefined ? dialect.limit(query.limit) : '']);
  return {
    datasource: left.explore.datasource,
    sql,
    params: ctx.params,
    fields,
    sourceRowCap: { cap: mergeSourceRows, explores: compiled.map((c) => c.explore.name) },
  };
}

/**
 * The one statement: the sources' CTEs (each to one row past the cap), the
 * guard, and the merged `rows` joined to the guard's one row, so the guard
 * is evaluated even when the merge has no row; the marker column (a name no
 * field id or calculation can have) tells a merged row from the guard's own.
 */
function mergeStatement(dialect: SqlDialect, sources: [string, string], rows: string, names: string[], cap: number, tail: string[]): string {
  const quote = (name: string) => dialect.quoteIdentifier(name);
  const [result, guard, present] = [quote('result'), quote('guard'), quote('#present')];
  return [
    `WITH ${sources.map((sql, i) => `${quote(`s${i}`)} AS (\n${cappedSource(dialect, sql, i, cap)}\n)`).join(', ')},`,
    `${guard} AS (${guardRow(dialect, sources.length, cap)})`,
    `SELECT ${names.map((n) => `${result}.${quote(n)}`).join(', ')} FROM ${guard} LEFT JOIN (SELECT ${quote('m')}.*, 1 AS ${present} FROM (\n${rows}\n) AS ${quote('m')}) AS ${result} ON 1 = 1`,
    `WHERE ${guard}.${quote('ok')} = 1 AND ${result}.${present} IS NOT NULL`,
    ...tail,
  ]
    .filter(Boolean)
    .join('\n');
}
