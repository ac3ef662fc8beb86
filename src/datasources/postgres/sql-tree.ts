/**
 * Reading libpg-query's JSON parse tree: a generic walk over every node, and the
 * names a person knows a statement by, for error messages and labels. Kept apart
 * from sql-safety.ts so the rules there read without the plumbing.
 */

export type Body = Record<string, unknown>;

/**
 * Visits every node of a libpg-query JSON tree. A node is an object with one key,
 * the node type (PascalCase, e.g. `FuncCall`); fields are camelCase or snake_case.
 * Iterative, so a deeply nested query cannot overflow the JS stack.
 */
export function walk(root: Body, visit: (tag: string, body: Body, isRoot: boolean) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (/^[A-Z]/.test(key) && child !== null && typeof child === 'object' && !Array.isArray(child)) {
          visit(key, child as Body, value === root);
        }
        stack.push(child);
      }
    }
  }
}

export function nodeOf(node: Body): [string, Body] {
  const [entry] = Object.entries(node);
  return entry === undefined ? ['', {}] : [entry[0], (entry[1] ?? {}) as Body];
}

const LABELS: Record<string, string> = {
  InsertStmt: 'INSERT', UpdateStmt: 'UPDATE', DeleteStmt: 'DELETE', MergeStmt: 'MERGE', DoStmt: 'DO', CallStmt: 'CALL',
  CopyStmt: 'COPY', ListenStmt: 'LISTEN', UnlistenStmt: 'UNLISTEN', NotifyStmt: 'NOTIFY', PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE', DeallocateStmt: 'DEALLOCATE', DeclareCursorStmt: 'DECLARE CURSOR', ClosePortalStmt: 'CLOSE',
  LockStmt: 'LOCK', TruncateStmt: 'TRUNCATE', DropStmt: 'DROP', ViewStmt: 'CREATE VIEW', IndexStmt: 'CREATE INDEX',
  CreateStmt: 'CREATE TABLE', CreateTableAsStmt: 'CREATE TABLE AS', RefreshMatViewStmt: 'REFRESH MATERIALIZED VIEW',
  CommentStmt: 'COMMENT', RenameStmt: 'RENAME', CheckPointStmt: 'CHECKPOINT', DiscardStmt: 'DISCARD', LoadStmt: 'LOAD',
  VariableShowStmt: 'SHOW', PLAssignStmt: 'PL/pgSQL assignment', ExplainStmt: 'EXPLAIN',
};

export function statementLabel(tag: string, body: Body): string {
  switch (tag) {
    case 'TransactionStmt':
      return String(body.kind ?? 'TRANSACTION').replace('TRANS_STMT_', '').replaceAll('_', ' ');
    case 'VariableSetStmt':
      return String(body.kind ?? '').startsWith('VAR_RESET') ? 'RESET' : 'SET';
    case 'VacuumStmt':
      return body.is_vacuumcmd === true ? 'VACUUM' : 'ANALYZE';
    case 'GrantStmt':
    case 'GrantRoleStmt':
      return body.is_grant === true ? 'GRANT' : 'REVOKE';
    case 'CreateTableAsStmt':
      return body.objtype === 'OBJECT_MATVIEW' ? 'CREATE MATERIALIZED VIEW' : 'CREATE TABLE AS';
    case 'FetchStmt':
      return body.ismove === true ? 'MOVE' : 'FETCH';
  }
  // AlterTableStmt -> ALTER TABLE
  return LABELS[tag] ?? tag.replace(/Stmt$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}

const DEFINITIONS = new Set([
  'TruncateStmt', 'CommentStmt', 'GrantStmt', 'GrantRoleStmt', 'RenameStmt', 'ViewStmt', 'IndexStmt', 'DefineStmt',
  'CompositeTypeStmt', 'RuleStmt', 'SecLabelStmt', 'ReassignOwnedStmt', 'ImportForeignSchemaStmt',
]);

export function isDefinition(tag: string): boolean {
  return DEFINITIONS.has(tag) || /^(Create|Alter|Drop)/.test(tag);
}
