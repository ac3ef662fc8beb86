/**
 * Table calculations over a merge's columns, in Sluice's own small grammar,
 * parsed here and compiled to SQL by Sluice; the caller's text is never
 * spliced into SQL. Every token is one of: a number, a column's field id, an
 * operator `+ - * /`, a parenthesis, a comma, or the name of one of the two
 * functions:
 *
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/") unary)*
 *   unary      := "-" unary | primary
 *   primary    := number | fieldId | function "(" expression ("," expression)* ")" | "(" expression ")"
 *   function   := coalesce (two or more arguments) | nullif (two)
 *
 * A field id is written as the result column is named (`sales.revenue`, or
 * `sales.revenue#1` for the second of two columns of the same id). Division
 * is by NULLIF(divisor, 0), so a zero divisor gives NULL, and is done in
 * decimal arithmetic (1.0 * dividend), so two integers do not truncate.
 */

/** The longest expression and the deepest nesting a calculation may have. */
export const MAX_EXPRESSION_CHARS = 1000;
export const MAX_EXPRESSION_DEPTH = 20;

const FUNCTIONS: Record<string, { min: number; max: number; sql: string }> = {
  coalesce: { min: 2, max: 20, sql: 'COALESCE' },
  nullif: { min: 2, max: 2, sql: 'NULLIF' },
};

type Token = { type: 'number' | 'name' | 'op'; text: string; at: number };

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*(?:#\d+)?)?)|([-+*/(),]))/iy;

class CalculationError extends Error {}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (m === null) {
      if (text.slice(at).trim() === '') break;
      const where = at + (text.slice(at).length - text.slice(at).trimStart().length);
      throw new CalculationError(`unexpected character ${JSON.stringify(text[where])} at position ${where + 1}; an expression holds numbers, field ids, + - * /, parentheses, coalesce and nullif.`);
    }
    const [, number, name, op] = m;
    tokens.push(number !== undefined ? { type: 'number', text: number, at } : name !== undefined ? { type: 'name', text: name, at } : { type: 'op', text: op!, at });
  }
  return tokens;
}

/** Parses and compiles one expression; `columnOf` answers a field id's quoted column, or null. */
class Compiler {
  readonly #tokens: Token[];
  readonly #columnOf: (id: string) => string | null;
  #pos = 0;

  constructor(tokens: Token[], columnOf: (id: string) => string | null) {
    this.#tokens = tokens;
    this.#columnOf = columnOf;
  }

  compile(): string {
    if (this.#tokens.length === 0) throw new CalculationError('the expression is empty.');
    const sql = this.#expression(0);
    const rest = this.#tokens[this.#pos];
    if (rest !== undefined) throw new CalculationError(`unexpected "${rest.text}" after a complete expression.`);
    return sql;
  }

  #peek(): Token | undefined {
    return this.#tokens[this.#pos];
  }

  #expect(text: string): void {
    const t = this.#tokens[this.#pos++];
    if (t?.text !== text) throw new CalculationError(`expected "${text}" but found ${t === undefined ? 'the end' : `"${t.text}"`}.`);
  }

  #expression(depth: number): string {
    if (depth > MAX_EXPRESSION_DEPTH) throw new CalculationError(`the expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels.`);
    let sql = this.#term(depth);
    for (let t = this.#peek(); t?.text === '+' || t?.text === '-'; t = this.#peek()) {
      this.#pos++;
      sql = `(${sql} ${t.text} ${this.#term(depth)})`;
    }
    return sql;
  }

  #term(depth: number): string {
    let sql = this.#unary(depth);
    for (let t = this.#peek(); t?.text === '*' || t?.text === '/'; t = this.#peek()) {
      this.#pos++;
      const right = this.#unary(depth);
      sql = t.text === '*' ? `(${sql} * ${right})` : `((1.0 * ${sql}) / NULLIF(${right}, 0))`;
    }
    return sql;
  }

  #unary(depth: number): string {
    if (this.#peek()?.text === '-') {
      this.#pos++;
      if (depth + 1 > MAX_EXPRESSION_DEPTH) throw new CalculationError(`the expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels.`);
      return `(-${this.#unary(depth + 1)})`;
    }
    return this.#primary(depth);
  }

  #primary(depth: number): string {
    const t = this.#tokens[this.#pos++];
    if (t === undefined) throw new CalculationError('the expression ends too early.');
    if (t.type === 'number') return t.text;
    if (t.text === '(') {
      const inner = this.#expression(depth + 1);
      this.#expect(')');
      return `(${inner})`;
    }
    if (t.type !== 'name') throw new CalculationError(`unexpected "${t.text}".`);
    if (this.#peek()?.text === '(') return this.#call(t, depth);
    const column = this.#columnOf(t.text);
    if (column === null) throw new CalculationError(`"${t.text}" is not a column of the merged result (its join keys and metrics).`);
    return column;
  }

  #call(name: Token, depth: number): string {
    const fn = FUNCTIONS[name.text.toLowerCase()];
    if (fn === undefined) throw new CalculationError(`"${name.text}" is not a function; the functions are coalesce and nullif.`);
    this.#expect('(');
    const args = [this.#expression(depth + 1)];
    while (this.#peek()?.text === ',') {
      this.#pos++;
      args.push(this.#expression(depth + 1));
    }
    this.#expect(')');
    if (args.length < fn.min || args.length > fn.max) {
      throw new CalculationError(`${name.text.toLowerCase()} takes ${fn.min === fn.max ? fn.min : `${fn.min} to ${fn.max}`} arguments; got ${args.length}.`);
    }
    return `${fn.sql}(${args.join(', ')})`;
  }
}

/** The SQL of `expression`, or why it is refused. */
export function compileCalculation(expression: string, columnOf: (id: string) => string | null): { sql: string } | { why: string } {
  if (expression.length > MAX_EXPRESSION_CHARS) return { why: `the expression is ${expression.length} characters long; the most is ${MAX_EXPRESSION_CHARS}.` };
  try {
    return { sql: new Compiler(tokenize(expression), columnOf).compile() };
  } catch (error) {
    if (error instanceof CalculationError) return { why: error.message };
    throw error;
  }
}
