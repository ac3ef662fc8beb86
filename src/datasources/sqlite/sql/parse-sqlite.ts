/**
 * SQLite text through sql-parser-cst's SQLite grammar: the one parse every
 * statement check, label and column hint starts from. A syntax error is
 * SQL_ERROR with the 1-based position (in characters, as the API counts
 * them) of where the grammar stopped.
 */
import { parse, type Node, type ParserOptions, type Program } from 'sql-parser-cst';
import { SluiceError } from '../../../errors.ts';

/** Every placeholder form SQLite has, so the check can name the ones it refuses rather than fail to parse them. */
const OPTIONS: ParserOptions = { dialect: 'sqlite', includeComments: true, includeRange: true, paramTypes: ['?', '?nr', '$nr', ':name', '$name', '@name'], filename: 'sql' };
const WHERE_MARK = '--> sql:';

/** The statements of `sql`, without the empty ones stray semicolons make. */
export function parseStatements(sql: string): Node[] {
  if (typeof sql !== 'string' || sql.trim() === '') {
    throw new SluiceError('VALIDATION_ERROR', 'The query is empty; send one SELECT statement.');
  }
  // SQLite stops reading a statement at a NUL: the check would see more than the engine runs.
  if (sql.includes('\0')) {
    throw new SluiceError('VALIDATION_ERROR', 'The query contains a NUL character, which SQL text cannot contain.');
  }
  let program: Program;
  try {
    program = parse(sql, OPTIONS);
  } catch (error) {
    throw syntaxError(sql, error);
  }
  const statements = program.statements.filter((s) => s.type !== 'empty');
  if (statements.length === 0) {
    throw new SluiceError('VALIDATION_ERROR', 'The query contains no statement, only comments or semicolons; send one SELECT statement.');
  }
  return statements;
}

/** Parses without throwing: null when the text is not one parsable statement (labels and hints never fail a query). */
export function parseOne(sql: string): Node | null {
  try {
    const statements = parseStatements(sql);
    return statements.length === 1 ? statements[0]! : null;
  } catch {
    return null;
  }
}

function syntaxError(sql: string, error: unknown): unknown {
  const message = error instanceof Error ? error.message : '';
  const lines = message.split('\n');
  const where = lines.find((line) => line.startsWith(WHERE_MARK));
  // Anything but the grammar's complaint is our own failure: let it become INTERNAL.
  if (!message.startsWith('Syntax Error') || where === undefined) return error;
  const [line = 1, column = 1] = where.slice(WHERE_MARK.length).split(':').map(Number);
  const unit = unitOffset(sql, line, column);
  const position = [...sql.slice(0, unit)].length + 1;
  const found = lines[0]!.replace('Syntax Error: ', '');
  return new SluiceError('SQL_ERROR', `The query could not be parsed: ${found} (position ${position}, line ${line}, column ${column}).`, { position });
}

/** The UTF-16 offset of a 1-based line and column, lines broken as the grammar breaks them (\r\n, \n or \r). */
function unitOffset(sql: string, line: number, column: number): number {
  let offset = 0;
  for (let current = 1; current < line && offset < sql.length; offset++) {
    if (sql[offset] === '\r' && sql[offset + 1] === '\n') offset++;
    if (sql[offset] === '\n' || sql[offset] === '\r') current++;
  }
  return Math.min(sql.length, offset + column - 1);
}
