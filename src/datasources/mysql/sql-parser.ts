/**
 * node-sql-parser with the grammar of the server a datasource turned out to
 * be (MariaDB or MySQL; the two differ in what they accept), and a walk over
 * its trees. Only the two grammars are loaded, not the parser's others.
 */
import mariadbBuild from 'node-sql-parser/build/mariadb.js';
import mysqlBuild from 'node-sql-parser/build/mysql.js';
import type { Parser as ParserClass } from 'node-sql-parser';

/** Which of the two engines a statement is read as. */
export type MysqlFlavor = 'mariadb' | 'mysql';

export type Node = Record<string, unknown>;

type ParserModule = { Parser: typeof ParserClass };

const parsers: Record<MysqlFlavor, { parser: ParserClass; database: string }> = {
  mariadb: { parser: new (mariadbBuild as unknown as ParserModule).Parser(), database: 'MariaDB' },
  mysql: { parser: new (mysqlBuild as unknown as ParserModule).Parser(), database: 'MySQL' },
};

/** A statement's parse trees (one per statement the parser found); throws the parser's error. */
export function parseTrees(view: string, flavor: MysqlFlavor): Node[] {
  const { parser, database } = parsers[flavor];
  const ast = parser.astify(view, { database }) as unknown as Node | Node[];
  return (Array.isArray(ast) ? ast : [ast]).filter((node) => node !== null && node !== undefined);
}

/** The parser's complaint: its message and the 0-based offset it points at, when the error is the parser's. */
export function parserComplaint(error: unknown): { message: string; offset: number } | undefined {
  const e = (error ?? {}) as { name?: unknown; message?: unknown; location?: { start?: { offset?: unknown } } };
  const offset = e.location?.start?.offset;
  if (e.name !== 'SyntaxError' || typeof offset !== 'number' || typeof e.message !== 'string') return undefined;
  return { message: e.message, offset };
}

/** Visits every object in a tree, iteratively, so a deeply nested query cannot overflow the stack. */
export function walk(root: unknown, visit: (node: Node) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    } else if (value !== null && typeof value === 'object') {
      visit(value as Node);
      for (const child of Object.values(value)) if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
}

/** A function node's own name (its last part), whichever shape the parser gave it. */
export function functionName(node: Node): string | undefined {
  const name = node.name;
  if (typeof name === 'string') return name;
  const parts = (name as { name?: { value?: unknown }[] } | undefined)?.name;
  const last = Array.isArray(parts) ? parts.at(-1)?.value : undefined;
  return typeof last === 'string' ? last : undefined;
}
