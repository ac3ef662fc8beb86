/**
 * The types a statement's result columns have before any row is read,
 * where its select list says them: SQLite declares a type only for a
 * column read straight from a table, so the export would otherwise wait
 * for the first row to type an expression, and a statement that runs long
 * before its first row could not be stopped until then. Read from the
 * parse tree: a CAST names its type (SQLite applies that name's affinity
 * itself, so `CAST(x AS BOOLEAN)` is typed boolean); a literal, a
 * comparison, `||`, and the functions whose result has one storage class
 * have that class. Anything else is left to the first row. The columns are
 * those of the leftmost SELECT of a compound, as SQLite names them; `*`
 * over a single subquery reads the subquery's list; any other `*` makes
 * the list not line up with the columns, and then no type is given.
 */
import type { Node } from 'sql-parser-cst';
import { parseOne } from './parse-sqlite.ts';

const INTEGER_FUNCTIONS = new Set(['count', 'length', 'octet_length', 'instr', 'unicode', 'random', 'changes', 'total_changes', 'last_insert_rowid', 'row_number', 'rank', 'dense_rank', 'ntile', 'sign', 'likely', 'glob', 'like']);
const REAL_FUNCTIONS = new Set(['avg', 'total', 'round', 'julianday', 'percent_rank', 'cume_dist', 'pi', 'sqrt', 'exp', 'ln', 'log', 'log2', 'log10', 'pow', 'power', 'sin', 'cos', 'tan', 'degrees', 'radians']);
const TEXT_FUNCTIONS = new Set([
  'lower', 'upper', 'substr', 'substring', 'trim', 'ltrim', 'rtrim', 'replace', 'hex', 'quote', 'typeof', 'printf', 'format', 'char', 'group_concat',
  'string_agg', 'date', 'time', 'datetime', 'strftime', 'timediff', 'json', 'json_array', 'json_object', 'json_group_array', 'json_group_object',
  'json_quote', 'json_type', 'sqlite_version', 'soundex', 'concat', 'concat_ws', 'unistr',
]);
const COMPARISONS = new Set(['=', '==', '<>', '!=', '<', '<=', '>', '>=', 'AND', 'OR', 'IS', 'IS NOT', 'IN', 'NOT IN', 'LIKE', 'NOT LIKE', 'GLOB', 'NOT GLOB', 'REGEXP', 'MATCH']);

function operatorName(operator: unknown): string {
  if (typeof operator === 'string') return operator.toUpperCase();
  const parts = Array.isArray(operator) ? operator : [operator];
  return parts.map((p) => String((p as { name?: unknown }).name ?? '')).join(' ');
}

function literalType(expr: Node): string | null {
  if (expr.type === 'number_literal') return /^[0-9]+$/.test(expr.text) ? 'integer' : 'real';
  if (expr.type === 'string_literal') return 'text';
  if (expr.type === 'blob_literal') return 'blob';
  if (expr.type === 'boolean_literal') return 'integer';
  return null;
}

function expressionType(sql: string, item: Node): string | null {
  let expr = item.type === 'alias' ? item.expr : item;
  while (expr.type === 'paren_expr') expr = expr.expr;
  if (expr.type === 'cast_expr') {
    const range = expr.args.expr.type === 'cast_arg' ? expr.args.expr.dataType.range : undefined;
    return range === undefined ? null : sql.slice(range[0], range[1]);
  }
  if (expr.type === 'func_call' && expr.name.type === 'identifier') {
    const name = expr.name.name.toLowerCase();
    if (INTEGER_FUNCTIONS.has(name)) return 'integer';
    if (REAL_FUNCTIONS.has(name)) return 'real';
    if (TEXT_FUNCTIONS.has(name)) return 'text';
    return null;
  }
  if (expr.type === 'binary_expr') {
    const operator = operatorName(expr.operator);
    if (operator === '||') return 'text';
    return COMPARISONS.has(operator) ? 'integer' : null;
  }
  if (expr.type === 'between_expr' || (expr.type === 'postfix_op_expr' && operatorName(expr.operator).includes('NULL'))) return 'integer';
  if (expr.type === 'prefix_op_expr' && ['NOT', 'EXISTS', 'NOT EXISTS'].includes(operatorName(expr.operator))) return 'integer';
  return literalType(expr);
}

function leftmostSelect(node: Node): Node | null {
  if (node.type === 'select_stmt') return node;
  if (node.type === 'compound_select_stmt') return leftmostSelect(node.left);
  if (node.type === 'paren_expr') return leftmostSelect(node.expr);
  return null;
}

/** The items of a select list, looking through `SELECT * FROM (subquery)`; null when a `*` cannot be followed. */
function selectItems(select: Node): Node[] | null {
  if (select.type !== 'select_stmt') return null;
  const clause = select.clauses.find((c) => c.type === 'select_clause');
  const items = clause?.type === 'select_clause' && clause.columns?.type === 'list_expr' ? clause.columns.items : [];
  const isStar = (item: Node) => item.type === 'all_columns' || (item.type === 'member_expr' && item.property.type === 'all_columns');
  if (!items.some(isStar)) return items.length > 0 ? items : null;
  if (items.length !== 1 || items[0]!.type !== 'all_columns') return null;
  const from = select.clauses.find((c) => c.type === 'from_clause');
  let source = from?.type === 'from_clause' ? from.expr : null;
  if (source?.type === 'alias') source = source.expr;
  if (source?.type !== 'paren_expr') return null;
  const inner = leftmostSelect(source.expr);
  return inner === null ? null : selectItems(inner);
}

/** Per result column, the type its select list gives it, or null; null for the whole when the list cannot be read that way. */
export function resultTypes(sql: string): (string | null)[] | null {
  const statement = parseOne(sql);
  const select = statement === null ? null : leftmostSelect(statement);
  const items = select === null ? null : selectItems(select);
  if (items === null) return null;
  const types = items.map((item) => expressionType(sql, item));
  return types.some((t) => t !== null) ? types : null;
}
