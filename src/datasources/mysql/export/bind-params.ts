/**
 * Bound values put into the statement as literals, where its placeholders
 * are: `?` takes the values in order, `:n` the n-th value (as often as it
 * appears). The text protocol is what gives every value as the server's
 * own text, so values are quoted here rather than sent in a prepared
 * statement. The placeholders are found with the same lexer the statement
 * check used (so a `?` inside a string or comment is left alone), and
 * strings are quoted by mysql2's escaping for the session's sql_mode,
 * which never has NO_BACKSLASH_ESCAPES (export/mysql-session.ts): a
 * backslash and a quote are both escaped, so a value can never end its
 * literal.
 */
import mysql from 'mysql2';
import { SluiceError } from '../../../errors.ts';
import { lex } from '../sql-lexer.ts';

/** mysql2's own string escaping (sqlstring's), which backslash-escapes quotes, backslashes and control characters. */
function quoteString(value: string): string {
  return mysql.escape(value);
}

/** A value as a literal: numbers as numbers (negative ones in parentheses, so no `--` is ever formed), strings quoted. */
function literal(value: unknown, index: number): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'bigint') return value < 0n ? `(${value})` : String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new SluiceError('VALIDATION_ERROR', `Parameter ${index} is ${value}, which SQL cannot hold; send it as a string.`);
    return value < 0 || Object.is(value, -0) ? `(${value})` : String(value);
  }
  if (typeof value === 'string') return quoteString(value);
  throw new SluiceError('VALIDATION_ERROR', `Parameter ${index} is not a string, number, boolean or null.`);
}

/** `sql` with each placeholder replaced by its value's literal; unchanged when it has none. */
export function bindParams(sql: string, params: unknown[]): string {
  const { tokens } = lex(sql);
  let out = '';
  let position = 0;
  for (const token of tokens) {
    const text = sql.slice(token.start, token.end);
    if (token.kind !== 'placeholder') {
      out += text;
      continue;
    }
    const index = text === '?' ? ++position : Number(text.slice(1));
    if (index > params.length) {
      throw new SluiceError('VALIDATION_ERROR', `The statement uses parameter ${index} but "params" has ${params.length} value(s).`);
    }
    // Spaces keep a literal from joining the text around it into another token.
    out += ` ${literal(params[index - 1], index)} `;
  }
  return out;
}
