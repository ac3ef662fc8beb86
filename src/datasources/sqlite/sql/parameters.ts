/**
 * SQLite's placeholders as the export binds them: `?NNN` is the NNN-th
 * value and a bare `?` the one after the highest numbered so far, which is
 * how SQLite numbers them. Named placeholders (`:name`, `@name`, `$name`,
 * and `$1`, which SQLite treats as a name, numbered by first appearance)
 * would bind a positional list by accident, so they are refused.
 */
import type { Node } from 'sql-parser-cst';
import { SluiceError } from '../../../errors.ts';
import { walk } from './cst-walk.ts';

/** SQLITE_MAX_VARIABLE_NUMBER's default since SQLite 3.32. */
export const MAX_PARAMS = 32766;

interface Placeholder {
  text: string;
  range: [number, number];
  /** The value it binds, 1-based, as SQLite numbers it. */
  index: number;
}

/** The placeholders of `root` in source order, each with the index SQLite gives it. */
function placeholders(root: Node): Placeholder[] {
  const found: Placeholder[] = [];
  walk(root, (node) => {
    if (node.type === 'parameter') found.push({ text: node.text, range: node.range ?? [0, 0], index: 0 });
  });
  let highest = 0;
  for (const placeholder of found.sort((a, b) => a.range[0] - b.range[0])) {
    const { text } = placeholder;
    if (text === '?') {
      highest += 1;
      placeholder.index = highest;
    } else if (text.startsWith('?') && /^\?[0-9]+$/.test(text)) {
      const number = Number(text.slice(1));
      if (number < 1 || number > MAX_PARAMS) {
        throw new SluiceError('VALIDATION_ERROR', `Parameter ${text} is not valid; parameters are numbered ?1 to ?${MAX_PARAMS}.`);
      }
      highest = Math.max(highest, number);
      placeholder.index = number;
    } else {
      throw new SluiceError('VALIDATION_ERROR', `Named parameter ${text} is not supported; number parameters as ?1, ?2, … in the order of "params".`, { parameter: text });
    }
    if (highest > MAX_PARAMS) throw new SluiceError('VALIDATION_ERROR', `The statement uses more than ${MAX_PARAMS} parameters.`);
  }
  return found;
}

/** The highest parameter `root` uses, 0 if none. */
export function parameterCount(root: Node): number {
  return Math.max(0, ...placeholders(root).map((p) => p.index));
}

/**
 * The statement with every placeholder written ?N, numbered without gaps,
 * and the values in that order: what every SQLite library binds the same
 * way (better-sqlite3 binds ?N only by name, and a number no placeholder
 * uses would leave a value it cannot place). A value no placeholder uses is
 * never read by SQLite either, so dropping it changes nothing.
 */
export function denseParameters<T>(sql: string, root: Node, values: T[]): { sql: string; values: T[] } {
  const found = placeholders(root);
  const used = [...new Set(found.map((p) => p.index))].sort((a, b) => a - b);
  const dense = new Map(used.map((index, i) => [index, i + 1]));
  let text = sql;
  for (const placeholder of [...found].reverse()) {
    text = `${text.slice(0, placeholder.range[0])}?${dense.get(placeholder.index)}${text.slice(placeholder.range[1])}`;
  }
  return { sql: text, values: used.map((index) => values[index - 1]!) };
}
