/** How a statement is named in a refusal: its leading keywords as a person writes them. */
import type { Node } from 'sql-parser-cst';

const LABELS: Record<string, string> = {
  start_transaction_stmt: 'BEGIN',
  commit_transaction_stmt: 'COMMIT',
  rollback_transaction_stmt: 'ROLLBACK',
  release_savepoint_stmt: 'RELEASE',
  attach_database_stmt: 'ATTACH',
  detach_database_stmt: 'DETACH',
};

export function statementLabel(node: Node): string {
  const known = LABELS[node.type];
  if (known !== undefined) return known;
  if (node.type === 'insert_stmt') {
    const clause = node.clauses.find((c) => c.type === 'insert_clause');
    if (clause?.type === 'insert_clause') return clause.insertKw.name;
  }
  return node.type.replace(/_stmt$/, '').replaceAll('_', ' ').toUpperCase();
}
