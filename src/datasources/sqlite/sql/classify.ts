/**
 * SQL labels for the chat feature (never run) and a statement's own LIMIT,
 * read from the same SQLite grammar as the read-only check.
 */
import type { Node } from 'sql-parser-cst';
import type { SqlBlockKind } from '../../../vocabulary.ts';
import { parseOne } from './parse-sqlite.ts';

const DML = new Set(['insert_stmt', 'update_stmt', 'delete_stmt']);

export async function classifySqlite(sql: string): Promise<SqlBlockKind> {
  const statement = parseOne(sql);
  if (statement === null) return 'other';
  if (statement.type === 'select_stmt' || statement.type === 'compound_select_stmt') return 'select';
  if (DML.has(statement.type)) return 'dml';
  if (/^(create|drop|alter)_/.test(statement.type)) return 'ddl';
  return 'other';
}

/** The LIMIT that ends the statement: a compound's LIMIT belongs to its last SELECT in the tree, and to the whole in SQLite. */
function lastSelect(statement: Node): Node | null {
  if (statement.type === 'select_stmt') return statement;
  if (statement.type === 'compound_select_stmt') return lastSelect(statement.right);
  return null;
}

export async function sqliteOwnLimit(sql: string): Promise<number | null> {
  const statement = parseOne(sql);
  const select = statement === null ? null : lastSelect(statement);
  if (select?.type !== 'select_stmt') return null;
  const limit = select.clauses.find((c) => c.type === 'limit_clause');
  if (limit?.type !== 'limit_clause' || limit.count?.type !== 'number_literal') return null;
  const value = Number(limit.count.text);
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}
