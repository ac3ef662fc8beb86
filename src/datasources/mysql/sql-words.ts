/**
 * The statement check's reading of the tokens themselves, before and beside
 * the parse tree: the statement's first word, and the words and calls that
 * are refused wherever they stand. Reserved words (INTO, LOCK, UPDATE) and a
 * function name followed by `(` mean the same to the server wherever they
 * occur outside strings and comments, so a construct the parser misreads or
 * does not know is still refused.
 */
import { isSignificant, type Token } from './sql-lexer.ts';
import { deniedFunctionReason } from './sql-functions.ts';
import { refuse } from './sql-statement.ts';

export interface Word {
  /** Upper-cased text of a word token; the symbol itself for any other token. */
  text: string;
  token: Token;
}

/** The statement's significant tokens as words (strings and quoted identifiers keep their kind, their text is not read). */
export function wordsOf(text: string, tokens: Token[]): Word[] {
  return tokens.filter(isSignificant).map((token) => ({
    text: token.kind === 'word' || token.kind === 'symbol' ? text.slice(token.start, token.end).toUpperCase() : `<${token.kind}>`,
    token,
  }));
}

/** Statements that read: the first word of anything else names what it is. */
export const READ_STARTS = new Set(['SELECT', 'WITH', '(', 'EXPLAIN']);

const SEQUENCES: [string, string, string][] = [['NEXT', 'VALUE', 'FOR'], ['PREVIOUS', 'VALUE', 'FOR']];

/** Refuses the words and calls no read may hold, wherever they are. */
export function checkWords(words: Word[]): void {
  words.forEach((word, i) => {
    const next = words[i + 1]?.text;
    const at = (n: number) => words[i + n]?.text;
    if (word.text === 'INTO') refuse('INTO writes the result to a file or to variables and is not allowed; remove the INTO clause.');
    if (word.text === 'LOCK' || (word.text === 'FOR' && (next === 'UPDATE' || next === 'SHARE'))) {
      refuse('Row locking (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE) is not allowed in a read-only query; remove the locking clause.');
    }
    if (word.text === ':' && next === '=') refuse('Assigning variables (:=) is not allowed in a read-only query.');
    if (SEQUENCES.some(([a, b, c]) => word.text === a && at(1) === b && at(2) === c)) refuse(`${word.text} VALUE FOR changes a sequence and is not allowed.`);
    if (word.token.kind === 'word' && next === '(') {
      const reason = deniedFunctionReason(word.text);
      if (reason !== undefined) refuse(`Function ${word.text} ${reason} and is not allowed.`, { function: word.text.toLowerCase() });
    }
  });
}
