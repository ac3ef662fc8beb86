/**
 * The early warning in front of a files datasource, decided by DuckDB's
 * own parser (sql-tree.ts): one statement, and a SELECT (DuckDB serializes
 * nothing else), with no function that reads the engine's settings or the
 * server's environment. The engine stays the boundary (locked-instance.ts,
 * and the statement-type check of every run in the query worker). It also
 * labels SQL for the chat feature and reads a statement's own LIMIT.
 */
import { StatementType } from '@duckdb/node-api';
import { SluiceError } from '../../errors.ts';
import type { SqlBlockKind } from '../../vocabulary.ts';
import type { CheckedStatement } from '../driver.ts';
import { SqlParser, walkTree, type Parsed, type TreeNode } from './sql-tree.ts';

/**
 * Functions that answer with the engine's settings, secrets, logs or file
 * paths, or the server's environment: nothing a query of the folder's
 * tables needs, and some would show where the folder is on the server.
 */
const DENIED_FUNCTIONS = new Set([
  'current_setting', 'getenv', 'getvariable', 'duckdb_settings', 'duckdb_secrets', 'which_secret', 'duckdb_temporary_files',
  'duckdb_logs', 'duckdb_logs_parsed', 'duckdb_log_contexts', 'duckdb_extensions', 'duckdb_external_file_cache',
  'duckdb_views', 'duckdb_databases', 'duckdb_memory', 'duckdb_variables', 'pragma_database_list',
]);

const ONE_SELECT = 'Only one SELECT statement is allowed on a files datasource (no writes, settings, ATTACH, COPY, INSTALL, LOAD or PRAGMA).';

export async function checkStatement(parser: SqlParser, sql: string): Promise<CheckedStatement> {
  const parsed = await parseOrThrow(parser, sql);
  if (!parsed.ok) {
    const count = await parser.count(sql).catch(() => 1);
    if (count > 1) throw new SluiceError('READ_ONLY_VIOLATION', `Only one statement per query is allowed; found ${count}.`, { statements: count });
    throw new SluiceError('READ_ONLY_VIOLATION', ONE_SELECT);
  }
  if (parsed.statements.length === 0) {
    throw new SluiceError('VALIDATION_ERROR', 'The query contains no statement, only comments or semicolons; send one SELECT statement.');
  }
  if (parsed.statements.length > 1) {
    const count = parsed.statements.length;
    throw new SluiceError('READ_ONLY_VIOLATION', `Only one statement per query is allowed; found ${count}.`, { statements: count });
  }
  const paramCount = checkTree(parsed.statements[0]!.node);
  const text = sql.trim();
  const offset = [...sql.slice(0, sql.length - sql.trimStart().length)].length;
  return { kind: 'select', sql: text, offset, paramCount };
}

export async function classifySql(parser: SqlParser, sql: string): Promise<SqlBlockKind> {
  let parsed: Parsed;
  try {
    parsed = await parseOrThrow(parser, sql);
  } catch {
    return 'other';
  }
  if (parsed.ok) return parsed.statements.length === 1 ? 'select' : 'other';
  const type = await parser.statementType(sql);
  if (type === null) return 'other';
  if ([StatementType.INSERT, StatementType.UPDATE, StatementType.DELETE, StatementType.MERGE_INTO, StatementType.COPY].includes(type)) return 'dml';
  if ([StatementType.CREATE, StatementType.DROP, StatementType.ALTER, StatementType.CREATE_FUNC].includes(type)) return 'ddl';
  return 'other';
}

/** The statement's own top-level LIMIT when it is a plain number. */
export async function ownLimit(parser: SqlParser, sql: string): Promise<number | null> {
  try {
    const parsed = await parser.parse(sql);
    if (!parsed.ok || parsed.statements.length !== 1) return null;
    const modifiers = (parsed.statements[0]!.node.modifiers as TreeNode[] | undefined) ?? [];
    const limit = modifiers.find((m) => m.type === 'LIMIT_MODIFIER')?.limit as TreeNode | undefined;
    const value = (limit?.value as TreeNode | undefined)?.value;
    return limit?.class === 'CONSTANT' && typeof value === 'number' && Number.isInteger(value) ? value : null;
  } catch {
    return null;
  }
}

async function parseOrThrow(parser: SqlParser, sql: string): Promise<Parsed> {
  if (typeof sql !== 'string' || sql.trim() === '') throw new SluiceError('VALIDATION_ERROR', 'The query is empty; send one SELECT statement.');
  // DuckDB's parser reads a C string and would stop at a NUL, checking less than was sent.
  if (sql.includes('\0')) throw new SluiceError('VALIDATION_ERROR', 'The query contains a NUL character, which SQL text cannot contain.');
  const parsed = await parser.parse(sql);
  if (!parsed.ok && parsed.errorType === 'parser') throw parseError(sql, parsed.message, parsed.position);
  return parsed;
}

/** DuckDB counts the position in characters (code points) from 0; the contract counts them from 1. */
function parseError(sql: string, message: string, at: number | null): SluiceError {
  if (at === null) return new SluiceError('SQL_ERROR', `The query could not be parsed: ${message}.`);
  const before = [...sql].slice(0, at).join('');
  const position = at + 1;
  const lines = before.split('\n');
  const where = `position ${position}, line ${lines.length}, column ${[...(lines.at(-1) ?? '')].length + 1}`;
  return new SluiceError('SQL_ERROR', `The query could not be parsed: ${message} (${where}).`, { position });
}

/** Refuses denied functions and named parameters; returns the highest $n. */
function checkTree(root: TreeNode): number {
  let paramCount = 0;
  walkTree(root, (node) => {
    if (typeof node.function_name === 'string' && DENIED_FUNCTIONS.has(node.function_name.toLowerCase())) {
      throw new SluiceError('READ_ONLY_VIOLATION', `Function ${node.function_name} reads the engine's settings or the server's environment and is not allowed.`, {
        function: node.function_name,
      });
    }
    if (node.class === 'PARAMETER') {
      const identifier = String(node.identifier ?? '');
      const number = /^[0-9]+$/.test(identifier) ? Number(identifier) : NaN;
      if (!Number.isInteger(number) || number < 1) {
        throw new SluiceError('VALIDATION_ERROR', `Parameter $${identifier} is not valid; parameters are numbered $1, $2, ...`);
      }
      paramCount = Math.max(paramCount, number);
    }
  });
  return paramCount;
}
