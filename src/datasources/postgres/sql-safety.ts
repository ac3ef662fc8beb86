/**
 * The read-only gate in front of every user query. The database stays the real
 * boundary (a READ ONLY transaction with a statement timeout); this module parses
 * the text with PostgreSQL's own parser (libpg-query) so a caller gets an early,
 * clear error, and so the things READ ONLY does not stop for a superuser (file
 * reads, settings, signals, sequences, ...) are refused before they reach it.
 * It also labels SQL for the chat feature, which never runs what it labels.
 */
import { hasSqlDetails, parse } from 'libpg-query';
import { SluiceError } from '../../errors.ts';
import { deniedFunctionReason } from './sql-functions.ts';
import { isDefinition, nodeOf, statementLabel, walk, type Body } from './sql-tree.ts';
import type { SqlBlockKind } from '../../vocabulary.ts';
import type { StatementKind } from '../../worker/export-types.ts';
import type { CheckedStatement } from '../driver.ts';

interface RawStatement { stmt: Body; stmt_location?: number; stmt_len?: number }

// The wire protocol counts parameters in 16 bits.
const MAX_PARAMS = 65535;
const DML = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

export async function checkReadOnly(sql: string): Promise<CheckedStatement> {
  const statements = await parseOrThrow(sql);
  if (statements.length !== 1) {
    throw new SluiceError('READ_ONLY_VIOLATION', `Only one statement per query is allowed; found ${statements.length}.`, {
      statements: statements.length,
    });
  }
  const raw = statements[0]!;
  const [tag, body] = nodeOf(raw.stmt);
  let kind: StatementKind;
  if (tag === 'SelectStmt') {
    kind = 'select';
  } else if (tag === 'ExplainStmt') {
    checkExplain(body);
    kind = 'explain';
  } else {
    const found = statementLabel(tag, body);
    throw new SluiceError(
      'READ_ONLY_VIOLATION',
      `Only SELECT, VALUES, TABLE and EXPLAIN statements are allowed; found ${found}.`,
      { statement: found },
    );
  }
  const paramCount = checkTree(raw.stmt);
  return { kind, ...statementText(sql, raw), paramCount };
}

export async function classifySql(sql: string): Promise<SqlBlockKind> {
  let statements: RawStatement[];
  try {
    statements = await parseOrThrow(sql);
  } catch {
    return 'other';
  }
  if (statements.length !== 1) return 'other';
  const [tag, body] = nodeOf(statements[0]!.stmt);
  if (DML.has(tag)) return 'dml';
  if (tag === 'SelectStmt') {
    let modifies = false;
    walk(statements[0]!.stmt, (inner) => {
      if (DML.has(inner)) modifies = true;
    });
    if (modifies) return 'dml';
    // SELECT ... INTO is CREATE TABLE AS in another spelling.
    return body.intoClause === undefined ? 'select' : 'ddl';
  }
  return isDefinition(tag) ? 'ddl' : 'other';
}

async function parseOrThrow(sql: string): Promise<RawStatement[]> {
  if (typeof sql !== 'string' || sql.trim() === '') {
    throw new SluiceError('VALIDATION_ERROR', 'The query is empty; send one SELECT statement.');
  }
  // The parser reads a C string and would silently stop at a NUL, checking less than was sent.
  if (sql.includes('\0')) {
    throw new SluiceError('VALIDATION_ERROR', 'The query contains a NUL character, which SQL text cannot contain.');
  }
  let tree: { stmts?: RawStatement[] };
  try {
    tree = (await parse(sql)) as { stmts?: RawStatement[] };
  } catch (error) {
    throw parseError(sql, error);
  }
  const statements = tree.stmts ?? [];
  if (statements.length === 0) {
    throw new SluiceError('VALIDATION_ERROR', 'The query contains no statement, only comments or semicolons; send one SELECT statement.');
  }
  return statements;
}

function parseError(sql: string, error: unknown): unknown {
  // Anything but a parser complaint is our failure, not the caller's: let it become INTERNAL.
  if (!hasSqlDetails(error)) return error;
  const { message, cursorPosition } = error.sqlDetails;
  // libpg-query makes PostgreSQL's 1-based character cursor 0-based and also uses 0 for
  // "no position"; a syntax error always has one, so 0 there is the first character.
  const hasPosition = cursorPosition > 0 || /at or near|at end of input/.test(message);
  if (!hasPosition) return new SluiceError('SQL_ERROR', `The query could not be parsed: ${message}.`);
  const position = cursorPosition + 1;
  const lines = sql.slice(0, cursorPosition).split('\n');
  const where = `position ${position}, line ${lines.length}, column ${(lines.at(-1) ?? '').length + 1}`;
  return new SluiceError('SQL_ERROR', `The query could not be parsed: ${message} (${where}).`, { position });
}

function checkExplain(body: Body): void {
  for (const option of (body.options as Body[] | undefined) ?? []) {
    const [, def] = nodeOf(option);
    if (def.defname === 'analyze' && !isFalse(def.arg)) {
      throw new SluiceError(
        'READ_ONLY_VIOLATION',
        'EXPLAIN ANALYZE runs the statement and is not allowed; use EXPLAIN without ANALYZE.',
      );
    }
  }
  const [inner, innerBody] = nodeOf(body.query as Body);
  if (inner !== 'SelectStmt') {
    const found = statementLabel(inner, innerBody);
    throw new SluiceError('READ_ONLY_VIOLATION', `EXPLAIN is only allowed for SELECT queries; found EXPLAIN ${found}.`, {
      statement: found,
    });
  }
}

// Mirrors defGetBoolean: no argument means true; anything not plainly false counts as true.
function isFalse(arg: unknown): boolean {
  if (arg === undefined) return false;
  const [tag, value] = nodeOf(arg as Body);
  if (tag === 'Integer') return (value.ival ?? 0) === 0;
  if (tag === 'String' && typeof value.sval === 'string') return ['false', 'off'].includes(value.sval.toLowerCase());
  return false;
}

/** Refuses anything inside the statement that READ ONLY would not stop; returns the highest $n. */
function checkTree(root: Body): number {
  let paramCount = 0;
  walk(root, (tag, body, isRoot) => {
    if (tag === 'SelectStmt' && body.intoClause !== undefined) {
      refuse('SELECT ... INTO creates a table and is not allowed; remove the INTO clause.');
    } else if (tag === 'LockingClause') {
      const strength = String(body.strength ?? '').replace('LCS_FOR', '');
      const clause = LOCKS[strength] ?? 'FOR UPDATE / FOR SHARE';
      refuse(`Row locking (${clause}) is not allowed in a read-only query; remove the locking clause.`);
    } else if (DML.has(tag)) {
      refuse(`Data-modifying statements are not allowed, even inside WITH; found ${statementLabel(tag, body)}.`);
    } else if (tag.endsWith('Stmt') && tag !== 'SelectStmt' && !isRoot) {
      // COPY, SET and PL/pgSQL assignments cannot nest in a SELECT today; refuse if they ever do.
      refuse(`${statementLabel(tag, body)} is not allowed inside a query.`);
    } else if (tag === 'FuncCall') {
      const names = (body.funcname as Body[] | undefined) ?? [];
      checkFunction(names.at(-1));
    } else if (tag === 'A_Indirection') {
      // (expr).fn is PostgreSQL's attribute notation for fn(expr).
      for (const part of (body.indirection as Body[] | undefined) ?? []) checkFunction(part);
    } else if (tag === 'ColumnRef') {
      for (const part of ((body.fields as Body[] | undefined) ?? []).slice(1)) checkFunction(part);
    } else if (tag === 'ParamRef') {
      const number = typeof body.number === 'number' ? body.number : 0;
      if (number < 1 || number > MAX_PARAMS) {
        throw new SluiceError('VALIDATION_ERROR', `Parameter $${number} is not valid; parameters are numbered $1 to $${MAX_PARAMS}.`);
      }
      paramCount = Math.max(paramCount, number);
    }
  });
  return paramCount;
}

const LOCKS: Record<string, string> = {
  UPDATE: 'FOR UPDATE',
  NOKEYUPDATE: 'FOR NO KEY UPDATE',
  SHARE: 'FOR SHARE',
  KEYSHARE: 'FOR KEY SHARE',
};

function checkFunction(part: Body | undefined): void {
  if (part === undefined) return;
  const [tag, body] = nodeOf(part);
  if (tag !== 'String' || typeof body.sval !== 'string') return;
  const reason = deniedFunctionReason(body.sval);
  if (reason !== undefined) refuse(`Function ${body.sval} ${reason} and is not allowed.`, { function: body.sval });
}

function refuse(message: string, details?: Record<string, unknown>): never {
  throw new SluiceError('READ_ONLY_VIOLATION', message, details);
}

// stmt_location and stmt_len are UTF-8 byte offsets. stmt_len is absent when the
// statement runs to the end of the text; otherwise it stops before the semicolon,
// which drops stray semicolons and trailing comments a caller might wrap badly.
function statementText(text: string, raw: RawStatement): { sql: string; offset: number } {
  const bytes = Buffer.from(text, 'utf8');
  const start = raw.stmt_location ?? 0;
  const end = raw.stmt_len === undefined || raw.stmt_len === 0 ? bytes.length : start + raw.stmt_len;
  const statement = bytes.subarray(start, end).toString('utf8');
  const leading = statement.slice(0, statement.length - statement.trimStart().length);
  const offset = [...bytes.subarray(0, start).toString('utf8')].length + [...leading].length;
  return { sql: statement.trim(), offset };
}
