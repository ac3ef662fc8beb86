/**
 * Builds the DuckDB statement for one page of an artifact: projection,
 * filters (values always bound as parameters, never spliced), sort with the
 * artifact's row order as the last key so ties keep their stored order, and
 * the page window. Column names are checked against the artifact's schema
 * here, so a caller's text never reaches SQL except as a bound value.
 */
import { SluiceError } from '../errors.ts';
import { quoteIdent, quoteLiteral, type PlannedColumn, type StorageKind } from '../columns/column-plan.ts';
import { FILTER_OPS, type Filter, type FilterOp, type ReadRequest, type SortKey } from './types.ts';
import { rowJsonExpression } from '../columns/value-encoding.ts';
import { isListFilterOp } from '../vocabulary.ts';
import { bindType, checkFilterValue, type BoundValue } from './filter-values.ts';
import { COLUMN_WINDOW_TEXT_BYTES } from '../worker/protocol.ts';

export interface PartFile {
  path: string;
  rows: number;
}

export interface ReadStatement {
  sql: string;
  params: BoundValue[];
  columns: PlannedColumn[];
}

export function resolveColumn(columns: PlannedColumn[], name: string, role: string): PlannedColumn {
  const matches = columns.filter((c) => c.name === name);
  if (matches.length === 0) {
    throw new SluiceError('VALIDATION_ERROR', `Unknown column "${name}" in ${role}.`, {
      column: name,
      available: columns.map((c) => c.name),
    });
  }
  if (matches.length > 1) {
    throw new SluiceError('VALIDATION_ERROR', `Column name "${name}" appears ${matches.length} times in this artifact; it cannot be used in ${role}.`, {
      column: name,
    });
  }
  return matches[0]!;
}

export function project(columns: PlannedColumn[], names: string[] | undefined): PlannedColumn[] {
  if (names === undefined) return columns;
  if (names.length === 0) throw new SluiceError('VALIDATION_ERROR', '"columns" must name at least one column.');
  return names.flatMap((name) => {
    const matches = columns.filter((c) => c.name === name);
    if (matches.length === 0) {
      throw new SluiceError('VALIDATION_ERROR', `Unknown column "${name}" in columns.`, {
        column: name,
        available: columns.map((c) => c.name),
      });
    }
    // A duplicated name selects every column that carries it, in artifact order.
    return matches;
  });
}

/** Numeric text has no DuckDB number type wide enough to be exact, so it compares and sorts as DOUBLE. */
export function comparable(column: PlannedColumn): string {
  const ref = quoteIdent(column.storageName);
  return column.storage === 'numeric_text' ? `TRY_CAST(${ref} AS DOUBLE)` : ref;
}

function bind(column: PlannedColumn, value: unknown, params: BoundValue[]): string {
  const checked = checkFilterValue(column, value);
  params.push(checked);
  return `CAST(? AS ${bindType(column, checked)})`;
}

export function filterSql(columns: PlannedColumn[], filter: Filter, params: BoundValue[]): string {
  if (!(FILTER_OPS as readonly string[]).includes(filter.op)) {
    throw new SluiceError('UNSUPPORTED_CAPABILITY', `Filter op "${filter.op}" is not supported; use one of ${FILTER_OPS.join(', ')}.`, {
      op: filter.op,
      supported: [...FILTER_OPS],
    });
  }
  const column = resolveColumn(columns, filter.column, 'filters');
  const ref = comparable(column);
  const op = filter.op as FilterOp;
  const needsList = isListFilterOp(op);
  if (needsList && !Array.isArray(filter.value)) {
    throw new SluiceError('VALIDATION_ERROR', `Filter "${op}" on "${column.name}" needs an array value.`);
  }
  const list = needsList ? (filter.value as unknown[]) : [];
  switch (op) {
    case 'is_null':
      return `${ref} IS NULL`;
    case 'is_not_null':
      return `${ref} IS NOT NULL`;
    case 'eq':
      return `${ref} = ${bind(column, filter.value, params)}`;
    // ne and not_in follow SQL, as every other op does: a NULL is neither equal nor unequal to a value,
    // so it matches neither eq nor ne (only is_null finds it), exactly as the same WHERE in PostgreSQL.
    case 'ne':
      return `${ref} <> ${bind(column, filter.value, params)}`;
    case 'lt':
      return `${ref} < ${bind(column, filter.value, params)}`;
    case 'lte':
      return `${ref} <= ${bind(column, filter.value, params)}`;
    case 'gt':
      return `${ref} > ${bind(column, filter.value, params)}`;
    case 'gte':
      return `${ref} >= ${bind(column, filter.value, params)}`;
    case 'between':
      if (list.length !== 2) throw new SluiceError('VALIDATION_ERROR', `Filter "between" on "${column.name}" needs [low, high].`);
      return `${ref} BETWEEN ${bind(column, list[0], params)} AND ${bind(column, list[1], params)}`;
    case 'in':
    case 'not_in': {
      if (list.length === 0 || list.length > 1000) {
        throw new SluiceError('VALIDATION_ERROR', `Filter "${op}" on "${column.name}" needs 1 to 1000 values.`);
      }
      const items = list.map((v) => bind(column, v, params)).join(', ');
      return op === 'in' ? `${ref} IN (${items})` : `${ref} NOT IN (${items})`;
    }
    case 'contains':
    case 'starts_with': {
      if (typeof filter.value !== 'string') {
        throw new SluiceError('VALIDATION_ERROR', `Filter "${op}" on "${column.name}" needs a string value.`);
      }
      params.push(filter.value);
      const text = `CAST(${quoteIdent(column.storageName)} AS VARCHAR)`;
      return op === 'contains' ? `contains(${text}, ?)` : `starts_with(${text}, ?)`;
    }
  }
}

/**
 * The part a row comes from, as a sort key: file_index is the part's place in the list, so ties
 * keep artifact row order whatever the parts' file names (a bucket's parts are cached under their
 * hashes, whose order is not the parts'). A stored column of that name would hide it: the part's
 * place is then looked up from the file name instead.
 */
function partOrder(columns: PlannedColumn[], parts: PartFile[]): { key: string; options: string } {
  if (!columns.some((c) => c.storageName.toLowerCase() === 'file_index')) return { key: 'file_index', options: '' };
  return { key: `list_position([${parts.map((p) => quoteLiteral(p.path)).join(', ')}], filename)`, options: ', filename = true' };
}

function orderSql(columns: PlannedColumn[], sort: SortKey[], part: string): string {
  const keys = sort.map((key) => {
    const column = resolveColumn(columns, key.column, 'sort');
    return `${comparable(column)} ${key.direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`;
  });
  return `ORDER BY ${[...keys, part, 'file_row_number'].join(', ')}`;
}

/** A read with neither filters nor sort: its rows are the artifact's, in stored order, so a page is a row range. */
export function isPlainRead(request: Pick<ReadRequest, 'filters' | 'sort'>): boolean {
  return (request.filters ?? []).length === 0 && (request.sort ?? []).length === 0;
}

/** The parts a plain page touches (`count` from `first`) and the row of the first part it starts at. */
export interface PageWindow {
  first: number;
  count: number;
  offset: number;
}

/**
 * Where a plain page of `limit` rows (and the one row past it that tells whether more
 * exist) lies, from the parts' row counts alone: the page reads only those parts.
 */
export function plainWindow(partRows: number[], offset: number, limit: number): PageWindow {
  let first = 0;
  let at = offset;
  while (first < partRows.length - 1 && at >= partRows[first]!) at -= partRows[first++]!;
  if (partRows.length === 0) return { first: 0, count: 0, offset: at };
  let count = 1;
  let wanted = at + limit + 1 - partRows[first]!;
  while (wanted > 0 && first + count < partRows.length) wanted -= partRows[first + count++]!;
  return { first, count, offset: at };
}

/**
 * A plain page as row ranges of its parts: each part is read only over the rows the
 * page shows (file_row_number bounds, which DuckDB turns into skipped row groups),
 * so a deep page costs what the first one does. No OFFSET: nothing is scanned to be thrown away.
 */
function plainPage(selected: PlannedColumn[], parts: PartFile[], offset: number, limit: number): string {
  const window = plainWindow(parts.map((p) => p.rows), offset, limit);
  let from = window.offset;
  let wanted = limit + 1;
  const ranges = parts.slice(window.first, window.first + window.count).map((part, i) => {
    const to = Math.min(part.rows, from + wanted);
    const range = `SELECT ${i}, file_row_number, ${rowJsonExpression(selected)} FROM read_parquet(${quoteLiteral(part.path)}, file_row_number = true) WHERE file_row_number >= ${from} AND file_row_number < ${to}`;
    wanted -= Math.max(0, to - from);
    from = 0;
    return range;
  });
  if (ranges.length === 0) return `SELECT NULL::VARCHAR WHERE false`;
  return `SELECT page.j FROM (${ranges.join(' UNION ALL ')}) AS page(s, n, j) ORDER BY page.s, page.n`;
}

export function buildReadStatement(columns: PlannedColumn[], parts: PartFile[], request: ReadRequest): ReadStatement {
  const selected = project(columns, request.columns);
  const params: BoundValue[] = [];
  const where = (request.filters ?? []).map((f) => filterSql(columns, f, params));
  const sorted = (request.sort ?? []).length > 0;
  if (where.length === 0 && !sorted) return { sql: plainPage(selected, parts, request.offset, request.limit), params, columns: selected };
  const list = parts.map((p) => quoteLiteral(p.path)).join(', ');
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const window = `LIMIT ${request.limit + 1} OFFSET ${request.offset}`;
  if (!sorted) {
    // Filtered only: the parts in list order keep artifact row order by themselves, as in a plain read_parquet.
    return { sql: `SELECT ${rowJsonExpression(selected)} FROM read_parquet([${list}]) ${whereSql} ${window}`, params, columns: selected };
  }
  const part = partOrder(columns, parts);
  const from = `read_parquet([${list}], file_row_number = true${part.options})`;
  // Sort and cut the page first, on plain columns; only the page's rows are then encoded
  // as JSON (encoding every row before the top-N made a sorted page several times slower).
  const carried = [...new Set([...selected, ...request.sort!.map((k) => resolveColumn(columns, k.column, 'sort'))].map((c) => quoteIdent(c.storageName)))];
  let alias = 'part_index';
  while (columns.some((c) => c.storageName.toLowerCase() === alias)) alias += '_';
  const page = `SELECT ${[...carried, `${part.key} AS ${alias}`, 'file_row_number'].join(', ')} FROM ${from} ${whereSql} ${orderSql(columns, request.sort!, part.key)} ${window}`;
  return { sql: `SELECT ${rowJsonExpression(selected)} FROM (${page}) AS page ${orderSql(columns, request.sort!, alias)}`, params, columns: selected };
}

/** Stored kinds whose values are DuckDB VARCHARs, which hold their bytes outside the vector once past 12. */
const TEXT_STORAGE: StorageKind[] = ['text', 'numeric_text', 'bytea', 'json_array'];

/**
 * Rows `from` to `to` (exclusive) of one part, in stored order, each selected column as it is
 * stored (no JSON) as c0, c1, …, then the bytes the row's text holds as text_bytes: a window a
 * read worker keeps and encodes page by page, and whose memory it bounds by those bytes
 * (worker/row-windows.ts). One file read by one thread keeps its order without ORDER BY
 * (preserve_insertion_order), which would cost a sort.
 */
export function windowSql(selected: PlannedColumn[], path: string, from: number, to: number): string {
  const text = selected.filter((c) => TEXT_STORAGE.includes(c.storage)).map((c) => `coalesce(strlen(${quoteIdent(c.storageName)}), 0)`);
  // As DOUBLE, exact to 2^53, so the worker adds plain numbers rather than a BigInt a row.
  const columns = [...selected.map((c, i) => `${quoteIdent(c.storageName)} AS c${i}`), `${text.length === 0 ? '0::DOUBLE' : `CAST(${text.join(' + ')} AS DOUBLE)`} AS text_bytes`];
  return `SELECT ${columns.join(', ')} FROM read_parquet(${quoteLiteral(path)}, file_row_number = true) WHERE file_row_number >= ${from} AND file_row_number < ${to}`;
}

/** Stored kinds a window may hold as JavaScript arrays (worker/column-window.ts): one fixed DuckDB type each, or text. */
const COLUMN_WINDOW_STORAGE: StorageKind[] = ['bool', 'int', 'int8', 'float', 'date', 'timestamp', 'timestamptz', 'text', 'numeric_text', 'bytea'];

/** Columns past which a window is copied as a table instead: 8 bytes a value, 30,720 rows, 64 columns is 15.7 MB. */
const COLUMN_WINDOW_COLUMNS = 64;

/**
 * Rows `from` to `to` (exclusive) of one part as one row of lists, for a window a read worker keeps
 * as JavaScript arrays (worker/column-window.ts), or null when a selected column's kind has no array
 * form. First the rows' numbers (`r`), by which the worker checks that the lists hold the window's
 * rows in order (comparing the lists in the statement cost DuckDB several times the rest of it); then,
 * for each column, the list of its values, or for text its values joined (NULL past
 * COLUMN_WINDOW_TEXT_BYTES in all) and the list of their byte lengths as INTEGERs (NULL where the
 * value is; a value past 2 GB fails the statement, and the worker copies a table). One aggregate over
 * one scan by one thread sees the rows in order; an ORDER BY in each aggregate would sort every
 * column, which cost as much as the rest of the window (bench/runs/2026-12-05-page-columns.md).
 */
export function windowColumnsSql(selected: PlannedColumn[], path: string, from: number, to: number): string | null {
  if (selected.length === 0 || selected.length > COLUMN_WINDOW_COLUMNS || !selected.every((c) => COLUMN_WINDOW_STORAGE.includes(c.storage))) return null;
  const isText = (c: PlannedColumn) => TEXT_STORAGE.includes(c.storage);
  const textBytes = selected.filter(isText).map((_, i) => `coalesce(sum(strlen(t${i})), 0)`);
  const small = textBytes.length === 0 ? 'true' : `${textBytes.join(' + ')} <= ${COLUMN_WINDOW_TEXT_BYTES}`;
  let texts = 0;
  const inner: string[] = [];
  const lists = selected.map((c, i) => {
    if (!isText(c)) {
      inner.push(`${quoteIdent(c.storageName)} AS c${i}`);
      return `list(c${i}) AS c${i}`;
    }
    const t = `t${texts++}`;
    inner.push(`${quoteIdent(c.storageName)} AS ${t}`);
    return `CASE WHEN ${small} THEN string_agg(${t}, '') END AS ${t}, list(strlen(${t})::INTEGER) AS ${t}_bytes`;
  });
  return `SELECT list(file_row_number) AS r, ${lists.join(', ')} FROM (SELECT ${inner.join(', ')}, file_row_number FROM read_parquet(${quoteLiteral(path)}, file_row_number = true) WHERE file_row_number >= ${from} AND file_row_number < ${to})`;
}
