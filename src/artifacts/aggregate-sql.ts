/**
 * Builds the DuckDB statement for an aggregate over an artifact: group-by
 * columns, metrics, filters (shared with page reads), sort by output name,
 * limit. Output columns get a planned storage kind so their values are
 * encoded like every other value; sums of integers and decimals stay exact
 * (DuckDB sums them as HUGEINT / DECIMAL(38, s)) and are returned as strings.
 */
import { SluiceError } from '../errors.ts';
import { quoteIdent, quoteLiteral, type PlannedColumn, type StorageKind } from '../columns/column-plan.ts';
import type { BoundValue } from './filter-values.ts';
import { comparable, filterSql, resolveColumn, type PartFile } from './read-sql.ts';
import type { AggregateRequest } from './types.ts';
import { rowJsonExpression } from '../columns/value-encoding.ts';

interface OutputColumn {
  name: string;
  type: string;
  storage: StorageKind;
  expression: string;
}

const NUMERIC: StorageKind[] = ['int', 'int8', 'float', 'decimal', 'numeric_text'];

function metricColumn(columns: PlannedColumn[], metric: AggregateRequest['metrics'][number]): OutputColumn {
  const name = metric.as ?? (metric.column === undefined ? metric.fn : `${metric.fn}_${metric.column}`);
  if (metric.fn === 'count' && metric.column === undefined) return { name, type: 'int8', storage: 'int8', expression: 'count(*)' };
  if (metric.column === undefined) throw new SluiceError('VALIDATION_ERROR', `Metric "${metric.fn}" needs a column.`);
  const column = resolveColumn(columns, metric.column, 'metrics');
  const ref = quoteIdent(column.storageName);
  switch (metric.fn) {
    case 'count':
      return { name, type: 'int8', storage: 'int8', expression: `count(${ref})` };
    // Numeric text compares as a number, as page reads compare it: 10 > 9, and 1.0 = 1.
    case 'count_distinct':
      return { name, type: 'int8', storage: 'int8', expression: `count(DISTINCT ${comparable(column)})` };
    case 'min':
    case 'max':
      return {
        name,
        type: column.type,
        storage: column.storage,
        // The value itself comes back (its text kept exactly); only the ordering is numeric.
        expression: column.storage === 'numeric_text' ? `arg_${metric.fn}(${ref}, ${comparable(column)})` : `${metric.fn}(${ref})`,
      };
    case 'sum':
    case 'avg': {
      if (!NUMERIC.includes(column.storage)) {
        throw new SluiceError('VALIDATION_ERROR', `Metric "${metric.fn}" needs a numeric column; "${column.name}" is ${column.type}.`);
      }
      if (metric.fn === 'avg') return { name, type: 'float8', storage: 'float', expression: `avg(${comparable(column)})` };
      if (column.storage === 'float') return { name, type: 'float8', storage: 'float', expression: `sum(${ref})` };
      // Unconstrained numeric is stored as text: it is summed as DECIMAL(38,10), exact up to 10 fractional digits.
      const summed = column.storage === 'numeric_text' ? `CAST(${ref} AS DECIMAL(38,10))` : ref;
      return { name, type: 'numeric', storage: 'numeric_text', expression: `sum(${summed})` };
    }
  }
}

export function buildAggregateStatement(columns: PlannedColumn[], parts: PartFile[], request: AggregateRequest) {
  if (request.metrics.length === 0 && (request.groupBy ?? []).length === 0) {
    throw new SluiceError('VALIDATION_ERROR', 'An aggregate needs at least one metric or group-by column.');
  }
  const groups = (request.groupBy ?? []).map((name) => resolveColumn(columns, name, 'groupBy'));
  const outputs: OutputColumn[] = [
    ...groups.map((c) => ({ name: c.name, type: c.type, storage: c.storage, expression: quoteIdent(c.storageName) })),
    ...request.metrics.map((m) => metricColumn(columns, m)),
  ];
  const names = new Set<string>();
  for (const o of outputs) {
    if (names.has(o.name)) throw new SluiceError('VALIDATION_ERROR', `Two output columns are named "${o.name}"; give metrics distinct "as" names.`);
    names.add(o.name);
  }
  const params: BoundValue[] = [];
  const where = (request.filters ?? []).map((f) => filterSql(columns, f, params));
  const aliased = outputs.map((o, i) => ({ ...o, storageName: `o${i}` }));
  const order = (request.sort ?? []).map((key) => {
    const index = outputs.findIndex((o) => o.name === key.column);
    if (index === -1) throw new SluiceError('VALIDATION_ERROR', `Sort column "${key.column}" is not an output of this aggregate.`, { outputs: [...names] });
    return `o${index} ${key.direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`;
  });
  // Without a sort, groups come in group-key order so repeated calls agree.
  const defaultOrder = groups.map((_, i) => `o${i} ASC NULLS LAST`);
  const files = parts.map((p) => quoteLiteral(p.path)).join(', ');
  const inner = [
    `SELECT ${aliased.map((o) => `${o.expression} AS ${o.storageName}`).join(', ')}`,
    `FROM read_parquet([${files}])`,
    where.length > 0 ? `WHERE ${where.join(' AND ')}` : '',
    groups.length > 0 ? `GROUP BY ${groups.map((_, i) => i + 1).join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const orderBy = [...order, ...defaultOrder];
  const sql = `SELECT ${rowJsonExpression(aliased)} FROM (${inner}) ${orderBy.length ? `ORDER BY ${orderBy.join(', ')}` : ''} LIMIT ${request.limit + 1}`;
  return { sql, params, columns: outputs.map((o) => ({ name: o.name, type: o.type })) };
}
