/**
 * The read-only gate in front of every query on a SQLite datasource. The
 * engine stays the real boundary (the file opened read-only, query_only on,
 * and a statement with no result columns never stepped); this check parses
 * the text with a SQLite grammar so a caller gets an early, clear error,
 * and so what a read-only connection would still do is refused before it
 * reaches SQLite: VACUUM INTO (which writes a new file even from a read-only
 * connection), ATTACH, settings, extension loading, raw page access.
 */
import type { Node } from 'sql-parser-cst';
import { SluiceError } from '../../../errors.ts';
import type { StatementKind } from '../../../worker/export-types.ts';
import type { CheckedStatement } from '../../driver.ts';
import { identifierName, walk } from './cst-walk.ts';
import { parameterCount } from './parameters.ts';
import { parseStatements } from './parse-sqlite.ts';
import { DENIED_FUNCTIONS, deniedTableReason, READ_PRAGMAS } from './sql-names.ts';
import { statementLabel } from './statement-label.ts';

const READS = new Set(['select_stmt', 'compound_select_stmt']);

export async function checkSqliteStatement(sql: string): Promise<CheckedStatement> {
  const statements = parseStatements(sql);
  if (statements.length !== 1) {
    throw new SluiceError('READ_ONLY_VIOLATION', `Only one statement per query is allowed; found ${statements.length}.`, { statements: statements.length });
  }
  const statement = statements[0]!;
  const kind = kindOf(statement);
  checkTree(statement);
  const [start, end] = statement.range ?? [0, sql.length];
  return { kind, sql: sql.slice(start, end), offset: [...sql.slice(0, start)].length, paramCount: parameterCount(statement) };
}

function kindOf(statement: Node): StatementKind {
  if (READS.has(statement.type)) return 'select';
  if (statement.type === 'explain_stmt') {
    if (!READS.has(statement.statement.type)) {
      const found = statementLabel(statement.statement);
      throw new SluiceError('READ_ONLY_VIOLATION', `EXPLAIN is only allowed for SELECT queries; found EXPLAIN ${found}.`, { statement: found });
    }
    return 'explain';
  }
  if (statement.type === 'pragma_stmt' && readPragma(statement.pragma)) return 'select';
  if (statement.type === 'pragma_stmt') {
    throw new SluiceError(
      'READ_ONLY_VIOLATION',
      `Only PRAGMAs that read a table's shape are allowed (${[...READ_PRAGMAS].join(', ')}), and none that sets a value.`,
      { statement: 'PRAGMA' },
    );
  }
  const found = statementLabel(statement);
  throw new SluiceError('READ_ONLY_VIOLATION', `Only SELECT, VALUES, WITH … SELECT and EXPLAIN statements are allowed; found ${found}.`, { statement: found });
}

/** `PRAGMA name` or `PRAGMA name(arg)` (schema-qualified or not) of a pragma on the read list; never `PRAGMA name = value`. */
function readPragma(pragma: Node): boolean {
  let target = pragma.type === 'pragma_func_call' ? pragma.name : pragma;
  if (target.type === 'member_expr') target = target.property;
  const name = identifierName(target);
  return name !== null && READ_PRAGMAS.has(name);
}

/** Refuses what no read needs, wherever it stands in the statement. */
function checkTree(root: Node): void {
  walk(root, (node) => {
    if (node !== root && node.type.endsWith('_stmt') && !READS.has(node.type)) {
      refuse(`${statementLabel(node)} is not allowed inside a query.`);
    }
    if (node.type === 'func_call') {
      const name = identifierName(node.name);
      const reason = name === null ? undefined : DENIED_FUNCTIONS.get(name);
      if (reason !== undefined) refuse(`Function ${name} ${reason} and is not allowed.`, { function: name });
    }
    // SQLite reads a quoted string as a name where only a name can stand (`x IN 'pragma_database_list'`).
    const name = identifierName(node) ?? (node.type === 'string_literal' ? node.value.toLowerCase() : null);
    const reason = name === null ? undefined : deniedTableReason(name);
    if (reason !== undefined) refuse(`${name} ${reason} and is not allowed.`, { table: name });
  });
}

function refuse(message: string, details?: Record<string, unknown>): never {
  throw new SluiceError('READ_ONLY_VIOLATION', message, details);
}
