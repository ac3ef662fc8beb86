/**
 * The names of a table's foreign keys, read from its CREATE TABLE text:
 * SQLite's pragma_foreign_key_list lists the keys but not the names their
 * CONSTRAINT clauses gave them. A key is found by its columns; one without
 * a name gets PostgreSQL's default (`<table>_<columns>_fkey`).
 */
import { parse, type Node } from 'sql-parser-cst';
import { walk } from './cst-walk.ts';

const key = (columns: string[]) => columns.map((c) => c.toLowerCase()).join('\0');

function columnsOf(list: Node | undefined): string[] {
  if (list?.type !== 'paren_expr' || list.expr.type !== 'list_expr') return [];
  return list.expr.items.flatMap((item) => (item.type === 'identifier' ? [item.name] : []));
}

/** Named foreign keys of `createSql` by their columns; empty when the text does not parse. */
function namedKeys(createSql: string): Map<string, string> {
  const names = new Map<string, string>();
  let program: Node;
  try {
    program = parse(createSql, { dialect: 'sqlite' });
  } catch {
    return names;
  }
  walk(program, (node, parent) => {
    if (node.type !== 'constraint' || node.name === undefined) return;
    const name = node.name.name?.name;
    if (name === undefined) return;
    if (node.constraint.type === 'constraint_foreign_key') names.set(key(columnsOf(node.constraint.columns)), name);
    else if (node.constraint.type === 'references_specification' && parent?.type === 'column_definition') names.set(key([parent.name.name]), name);
  });
  return names;
}

export function foreignKeyNamer(table: string, createSql: string | null): (columns: string[]) => string {
  const names = createSql === null ? new Map<string, string>() : namedKeys(createSql);
  return (columns) => names.get(key(columns)) ?? `${table}_${columns.join('_')}_fkey`;
}
