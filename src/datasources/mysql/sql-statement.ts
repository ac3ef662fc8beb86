/**
 * The one statement in what a caller sent, found with the server's lexical
 * rules (sql-lexer.ts): its text without surrounding comments, semicolons
 * and whitespace, where it starts, the view the parser reads, and its
 * placeholders. A statement binds values with `?` (numbered by position) or
 * with `:1`, `:2`, ... (the semantic layer's form: a number may repeat or
 * come out of order), never both.
 */
import { SluiceError } from '../../errors.ts';
import { codePointsBefore, isSignificant, lex, parserView, type LexProblem, type Token } from './sql-lexer.ts';

// The wire protocol counts a prepared statement's parameters in 16 bits; the same bound holds here.
export const MAX_PARAMS = 65535;

export interface Statement {
  /** The statement's text as it will be sent. */
  text: string;
  /** Code points of the sent text before `text`. */
  offset: number;
  /** UTF-16 offset of `text` in what was sent. */
  start: number;
  /** The statement's tokens, offsets into `text`. */
  tokens: Token[];
  /** `text` as the parser reads it (sql-lexer.ts parserView). */
  view: string;
  paramCount: number;
}

export function refuse(message: string, details?: Record<string, unknown>): never {
  throw new SluiceError('READ_ONLY_VIOLATION', message, details);
}

function problemError(sql: string, problem: LexProblem): SluiceError {
  const position = codePointsBefore(sql, problem.at) + 1;
  switch (problem.kind) {
    case 'executable-comment':
      return new SluiceError('READ_ONLY_VIOLATION', `Executable comments (${problem.text.slice(0, 12)}...) are run by the server and are not allowed (position ${position}); write their content as plain SQL.`, { position });
    case 'optimizer-hint':
      return new SluiceError('READ_ONLY_VIOLATION', `Optimizer hints (/*+ ... */) can change the server's limits for a statement and are not allowed (position ${position}).`, { position });
    case 'double-dash':
      return new SluiceError('READ_ONLY_VIOLATION', `"--" directly followed by a character is two minus signs to the server but a comment to other readers, so it is not allowed (position ${position}); put a space after "--" for a comment, or write "- -" for two minus signs.`, { position });
    case 'unterminated':
      return new SluiceError('SQL_ERROR', `The query could not be parsed: a ${problem.what} starting at position ${position} is never closed.`, { position });
  }
}

/** The single statement of `sql`, or the error that says why there is not exactly one. */
export function oneStatement(sql: string): Statement {
  if (typeof sql !== 'string' || sql.trim() === '') throw new SluiceError('VALIDATION_ERROR', 'The query is empty; send one SELECT statement.');
  if (sql.includes('\0')) throw new SluiceError('VALIDATION_ERROR', 'The query contains a NUL character, which SQL text cannot contain.');
  const { tokens, problems } = lex(sql);
  if (problems.length > 0) throw problemError(sql, problems[0]!);
  const statements: Token[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'semicolon') statements.push([]);
    else statements.at(-1)!.push(token);
  }
  const found = statements.filter((s) => s.some(isSignificant));
  if (found.length === 0) throw new SluiceError('VALIDATION_ERROR', 'The query contains no statement, only comments or semicolons; send one SELECT statement.');
  if (found.length > 1) refuse(`Only one statement per query is allowed; found ${found.length}.`, { statements: found.length });
  const significant = found[0]!.filter(isSignificant);
  const start = significant[0]!.start;
  const end = significant.at(-1)!.end;
  const text = sql.slice(start, end);
  const own = found[0]!.filter((t) => t.start >= start && t.end <= end).map((t) => ({ ...t, start: t.start - start, end: t.end - start }));
  return { text, offset: codePointsBefore(sql, start), start, tokens: own, view: parserView(text, own), paramCount: countParams(text, own) };
}

function countParams(text: string, tokens: Token[]): number {
  const marks = tokens.filter((t) => t.kind === 'placeholder').map((t) => text.slice(t.start, t.end));
  const positional = marks.filter((m) => m === '?').length;
  if (positional > 0 && positional < marks.length) {
    throw new SluiceError('VALIDATION_ERROR', 'The statement mixes ? and :n parameters; use one form (? in order, or :1, :2, ...).');
  }
  const count = positional > 0 ? positional : Math.max(0, ...marks.map((m) => Number(m.slice(1))));
  for (const mark of marks) {
    const n = mark === '?' ? 1 : Number(mark.slice(1));
    if (n < 1 || n > MAX_PARAMS) throw new SluiceError('VALIDATION_ERROR', `Parameter ${mark} is not valid; parameters are numbered :1 to :${MAX_PARAMS}.`);
  }
  if (count > MAX_PARAMS) throw new SluiceError('VALIDATION_ERROR', `The statement uses ${count} parameters; at most ${MAX_PARAMS} are allowed.`);
  return count;
}
