/** A walk over every node of a sql-parser-cst tree, in source order, with the node that holds it. */
import type { Node } from 'sql-parser-cst';

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

export function walk(root: Node, visit: (node: Node, parent: Node | null) => void): void {
  const stack: [Node, Node | null][] = [[root, null]];
  while (stack.length > 0) {
    const [node, parent] = stack.pop()!;
    visit(node, parent);
    const children: Node[] = [];
    for (const [key, value] of Object.entries(node)) {
      // Comments hold no SQL the engine runs.
      if (key === 'leading' || key === 'trailing') continue;
      for (const item of Array.isArray(value) ? value : [value]) if (isNode(item)) children.push(item);
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, node]);
  }
}

/** The name a node gives an identifier, lower case (SQLite matches names without regard to case). */
export function identifierName(node: Node): string | null {
  return node.type === 'identifier' ? node.name.toLowerCase() : null;
}
