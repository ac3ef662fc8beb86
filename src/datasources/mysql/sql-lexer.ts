/**
 * MySQL's and MariaDB's lexical rules, as the server applies them in the
 * export's session (NO_BACKSLASH_ESCAPES off, so a backslash escapes inside
 * a string): where comments, strings, quoted identifiers, placeholders and
 * semicolons are. The parser (node-sql-parser) decides the structure, but it
 * reads comments differently from the server in places that matter: it
 * skips `/*! ... *\/`, which the server runs, and takes `--x` for a comment,
 * which the server reads as two minus signs. So the statement check lexes
 * the text the server's way first, refuses what the two would read
 * differently, and hands the parser a view with the comments blanked out.
 */

export type TokenKind = 'space' | 'comment' | 'string' | 'identifier' | 'word' | 'placeholder' | 'semicolon' | 'symbol';

export interface Token {
  kind: TokenKind;
  /** UTF-16 offsets into the text, end exclusive. */
  start: number;
  end: number;
}

/** What the server would read differently from the parser, or cannot read at all. */
export type LexProblem =
  | { kind: 'executable-comment'; at: number; text: string }
  | { kind: 'optimizer-hint'; at: number }
  | { kind: 'double-dash'; at: number }
  | { kind: 'unterminated'; at: number; what: string };

export interface Lexed {
  tokens: Token[];
  problems: LexProblem[];
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** MySQL's `-- ` comment needs whitespace or a control character (or the end) after the dashes. */
function startsDashComment(text: string, i: number): boolean {
  const next = text.charCodeAt(i + 2);
  return Number.isNaN(next) || next <= 32;
}

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36 || code >= 128;
}

/** The end of a quoted run opened at `start` by `quote`: a doubled quote continues it, and in strings a backslash escapes. */
function quotedEnd(text: string, start: number, quote: string, backslash: boolean): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (backslash && c === '\\') i++;
    else if (c === quote) {
      if (text[i + 1] === quote) i++;
      else return i + 1;
    }
  }
  return -1;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

/** A `/*` comment from `start`: its end, and whether the server would run or read it (`/*!`, `/*M!`, `/*+`). */
function blockComment(text: string, start: number, problems: LexProblem[]): number {
  const close = text.indexOf('*/', start + 2);
  const end = close === -1 ? text.length : close + 2;
  const head = text.slice(start + 2, start + 4);
  if (head.startsWith('!') || head === 'M!') problems.push({ kind: 'executable-comment', at: start, text: text.slice(start, Math.min(end, start + 40)) });
  else if (head.startsWith('+')) problems.push({ kind: 'optimizer-hint', at: start });
  if (close === -1) problems.push({ kind: 'unterminated', at: start, what: 'comment' });
  return end;
}

function quoted(text: string, i: number, problems: LexProblem[]): Token {
  const quote = text[i]!;
  const end = quotedEnd(text, i, quote, quote !== '`');
  const what = quote === '`' ? 'quoted identifier' : 'string';
  if (end === -1) {
    problems.push({ kind: 'unterminated', at: i, what });
    return { kind: quote === '`' ? 'identifier' : 'string', start: i, end: text.length };
  }
  return { kind: quote === '`' ? 'identifier' : 'string', start: i, end };
}

/** The token that starts at `i`. */
function nextToken(text: string, i: number, problems: LexProblem[]): Token {
  const c = text[i]!;
  const code = text.charCodeAt(i);
  if (isSpace(code)) {
    let end = i + 1;
    while (end < text.length && isSpace(text.charCodeAt(end))) end++;
    return { kind: 'space', start: i, end };
  }
  if (c === '#') return { kind: 'comment', start: i, end: lineEnd(text, i) };
  if (c === '-' && text[i + 1] === '-') {
    if (startsDashComment(text, i)) return { kind: 'comment', start: i, end: lineEnd(text, i) };
    problems.push({ kind: 'double-dash', at: i });
  }
  if (c === '/' && text[i + 1] === '*') return { kind: 'comment', start: i, end: blockComment(text, i, problems) };
  if (c === "'" || c === '"' || c === '`') return quoted(text, i, problems);
  if (c === ';') return { kind: 'semicolon', start: i, end: i + 1 };
  if (c === '?') return { kind: 'placeholder', start: i, end: i + 1 };
  if (c === ':' && /[0-9]/.test(text[i + 1] ?? '')) {
    let end = i + 1;
    while (end < text.length && /[0-9]/.test(text[end]!)) end++;
    return { kind: 'placeholder', start: i, end };
  }
  if (isWordChar(code)) {
    let end = i + 1;
    while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
    return { kind: 'word', start: i, end };
  }
  return { kind: 'symbol', start: i, end: i + 1 };
}

export function lex(text: string): Lexed {
  const tokens: Token[] = [];
  const problems: LexProblem[] = [];
  let i = 0;
  while (i < text.length) {
    const token = nextToken(text, i, problems);
    tokens.push(token);
    i = token.end;
  }
  return { tokens, problems };
}

/** Tokens that are more than layout: what the server reads. */
export function isSignificant(token: Token): boolean {
  return token.kind !== 'space' && token.kind !== 'comment';
}

/**
 * The text the parser is given for the tokens `[from, to)` of `text`: each
 * comment blanked to spaces (line breaks kept) and each string's content to
 * `x`, so the parser sees the strings and comments exactly where the server
 * does whatever escapes they hold, and `:n` placeholders as `?`. Every
 * character keeps its offset, so the parser's error positions stay true.
 */
export function parserView(text: string, tokens: Token[]): string {
  let view = '';
  const opaque = tableFunctionSpans(text, tokens);
  for (const [i, token] of tokens.entries()) {
    const raw = text.slice(token.start, token.end);
    if (opaque.has(i)) view += '_'.repeat(raw.length);
    else if (token.kind === 'comment') view += raw.replace(/[^\n]/g, ' ');
    else if (token.kind === 'string') view += raw[0] + 'x'.repeat(Math.max(0, raw.length - 2)) + (raw.length > 1 ? raw[0] : '');
    else if (token.kind === 'placeholder') view += '?' + ' '.repeat(raw.length - 1);
    else view += raw;
  }
  return view;
}

/** Table functions the parser's grammar does not know; the statement check reads their arguments by their words alone. */
const TABLE_FUNCTIONS = new Set(['JSON_TABLE']);

/**
 * The indexes of the tokens of each `JSON_TABLE(...)` call, through its
 * closing parenthesis. node-sql-parser has no grammar for it, so the parser
 * is shown a table name of the same length instead; the words inside are
 * still checked (sql-words.ts), and nothing in its arguments can be a
 * statement of its own.
 */
function tableFunctionSpans(text: string, tokens: Token[]): Set<number> {
  const opaque = new Set<number>();
  tokens.forEach((token, i) => {
    if (token.kind !== 'word' || !TABLE_FUNCTIONS.has(text.slice(token.start, token.end).toUpperCase())) return;
    let j = i + 1;
    while (j < tokens.length && !isSignificant(tokens[j]!)) j++;
    if (tokens[j]?.kind !== 'symbol' || text[tokens[j]!.start] !== '(') return;
    let depth = 0;
    for (let k = j; k < tokens.length; k++) {
      const c = tokens[k]!.kind === 'symbol' ? text[tokens[k]!.start] : '';
      if (c === '(') depth++;
      if (c === ')') depth--;
      if (depth === 0) {
        for (let n = i; n <= k; n++) opaque.add(n);
        return;
      }
    }
  });
  return opaque;
}

/** The code points of `text` before UTF-16 offset `at`, as the engine counts positions. */
export function codePointsBefore(text: string, at: number): number {
  let count = 0;
  for (let i = 0; i < at; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdbff || i + 1 >= at) count++;
    else {
      count++;
      i++;
    }
  }
  return count;
}
