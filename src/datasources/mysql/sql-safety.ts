/**
 * The read-only gate in front of every query on MySQL or MariaDB. The server
 * stays the real boundary (a READ ONLY transaction in a READ ONLY session,
 * with the server's own statement time limit); this check gives an early,
 * clear error and refuses what READ ONLY does not stop for a privileged
 * user: files written or read, locks that outlive the statement, sequences,
 * variables, executable comments. The text is lexed the server's way
 * (sql-statement.ts), then parsed with node-sql-parser in the grammar of the
 * server the datasource is. It also labels SQL for the chat feature, which
 * never runs what it labels.
 */
import { SluiceError } from '../../errors.ts';
import type { SqlBlockKind } from '../../vocabulary.ts';
import type { CheckedStatement } from '../driver.ts';
import { deniedFunctionReason } from './sql-functions.ts';
import { codePointsBefore } from './sql-lexer.ts';
import { functionName, parserComplaint, parseTrees, walk, type MysqlFlavor, type Node } from './sql-parser.ts';
import { oneStatement, refuse, type Statement } from './sql-statement.ts';
import { checkWords, READ_STARTS, wordsOf, type Word } from './sql-words.ts';

/** Statement types of node-sql-parser that are never a read, wherever they are nested. */
const WRITES = new Set(['insert', 'update', 'delete', 'replace', 'create', 'alter', 'drop', 'truncate', 'rename', 'lock', 'unlock', 'call', 'grant', 'load_data', 'transaction', 'set', 'use']);

export function checkReadOnly(sql: string, flavor: MysqlFlavor): CheckedStatement {
  const statement = oneStatement(sql);
  const words = wordsOf(statement.text, statement.tokens);
  const first = words[0]!.text;
  if (!READ_STARTS.has(first)) refuse(`Only SELECT, WITH ... SELECT and EXPLAIN SELECT statements are allowed; found ${first}.`, { statement: first });
  if (first === 'EXPLAIN') checkExplainWords(words);
  checkWords(words);
  const root = parseOne(sql, statement, flavor);
  let kind: CheckedStatement['kind'] = 'select';
  if (root.type === 'explain') {
    const inner = (root.expr as Node | undefined)?.type;
    if (inner !== 'select') refuse(`EXPLAIN is only allowed for SELECT queries; found EXPLAIN ${String(inner ?? 'of a table').toUpperCase()}.`);
    kind = 'explain';
  } else if (root.type !== 'select') {
    refuse(`Only SELECT, WITH ... SELECT and EXPLAIN SELECT statements are allowed; found ${String(root.type).toUpperCase()}.`);
  }
  checkTree(root);
  return { kind, sql: statement.text, offset: statement.offset, paramCount: statement.paramCount };
}

/** EXPLAIN's options, then the statement it explains, which must be a read; ANALYZE would run it. */
const EXPLAIN_OPTIONS = new Set(['EXTENDED', 'PARTITIONS', 'FORMAT', '=', 'JSON', 'TRADITIONAL', 'TREE', 'ANALYZE']);

function checkExplainWords(words: Word[]): void {
  const options = words.slice(1).filter((w, i, rest) => rest.slice(0, i + 1).every((o) => EXPLAIN_OPTIONS.has(o.text)));
  if (options.some((w) => w.text === 'ANALYZE')) refuse('EXPLAIN ANALYZE runs the statement and is not allowed; use EXPLAIN without ANALYZE.');
  const explained = words[options.length + 1]?.text ?? '';
  if (!READ_STARTS.has(explained) || explained === 'EXPLAIN') {
    refuse(`EXPLAIN is only allowed for SELECT queries; found EXPLAIN ${explained}.`, { statement: `EXPLAIN ${explained}` });
  }
}

function parseOne(sql: string, statement: Statement, flavor: MysqlFlavor): Node {
  let trees: Node[];
  try {
    trees = parseTrees(statement.view, flavor);
  } catch (error) {
    throw parseError(sql, statement, error);
  }
  if (trees.length !== 1) refuse(`Only one statement per query is allowed; found ${trees.length}.`, { statements: trees.length });
  return trees[0]!;
}

function parseError(sql: string, statement: Statement, error: unknown): unknown {
  const complaint = parserComplaint(error);
  // Anything but a parser complaint is our failure, not the caller's: let it become INTERNAL.
  if (complaint === undefined) return error;
  const at = statement.start + complaint.offset;
  const position = codePointsBefore(sql, at) + 1;
  const lines = sql.slice(0, at).split('\n');
  const where = `position ${position}, line ${lines.length}, column ${codePointsBefore(lines.at(-1) ?? '', (lines.at(-1) ?? '').length) + 1}`;
  const near = statement.text.slice(complaint.offset, complaint.offset + 40).split('\n')[0];
  const what = near === undefined || near === '' ? 'at its end' : `near "${near}"`;
  return new SluiceError('SQL_ERROR', `The query could not be parsed ${what} (${where}).`, { position });
}

/** Refuses anything inside the statement that READ ONLY would not stop. */
function checkTree(root: Node): void {
  walk(root, (node) => {
    const into = node.into as Node | null | undefined;
    if (into !== null && typeof into === 'object' && (into.keyword != null || into.expr != null)) {
      refuse('INTO writes the result to a file or to variables and is not allowed; remove the INTO clause.');
    }
    if (node.locking_read != null) refuse(`Row locking (${String(node.locking_read)}) is not allowed in a read-only query; remove the locking clause.`);
    if (node.type === 'assign') refuse('Assigning variables (:=) is not allowed in a read-only query.');
    if (node !== root && typeof node.type === 'string' && WRITES.has(node.type)) refuse(`${node.type.toUpperCase()} is not allowed inside a query.`);
    if (node.type === 'function') {
      const name = functionName(node);
      const reason = name === undefined ? undefined : deniedFunctionReason(name);
      if (reason !== undefined) refuse(`Function ${name} ${reason} and is not allowed.`, { function: name!.toLowerCase() });
    }
  });
}

const DML = new Set(['insert', 'update', 'delete', 'replace']);
const DDL = new Set(['create', 'alter', 'drop', 'truncate', 'rename']);

export function classifySql(sql: string, flavor: MysqlFlavor): SqlBlockKind {
  try {
    const statement = oneStatement(sql);
    const trees = parseTrees(statement.view, flavor);
    if (trees.length !== 1) return 'other';
    const type = String(trees[0]!.type);
    if (DML.has(type)) return 'dml';
    if (DDL.has(type)) return 'ddl';
    if (type !== 'select') return 'other';
    let writes = false;
    walk(trees[0], (node) => {
      const into = node.into as Node | null | undefined;
      if (into != null && (into.keyword != null || into.expr != null)) writes = true;
    });
    return writes ? 'other' : 'select';
  } catch {
    return 'other';
  }
}

/** The statement's own top-level LIMIT when it is a plain number. */
export function ownLimit(sql: string, flavor: MysqlFlavor): number | null {
  try {
    const statement = oneStatement(sql);
    const [root] = parseTrees(statement.view, flavor);
    if (root?.type !== 'select') return null;
    const limit = root.limit as { seperator?: string; value?: { type?: string; value?: unknown }[] } | null | undefined;
    const values = limit?.value ?? [];
    const count = limit?.seperator === ',' ? values[1] : values[0];
    return count?.type === 'number' && typeof count.value === 'number' ? count.value : null;
  } catch {
    return null;
  }
}
