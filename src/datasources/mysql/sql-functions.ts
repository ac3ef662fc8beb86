/**
 * The functions a query on MySQL or MariaDB may not call. A READ ONLY
 * transaction stops writes to tables, but not these: they read the server's
 * files, take locks that outlive the statement, move sequences, wait on
 * replication, or reach other servers, and the datasource user may hold the
 * privileges that allow every one of them.
 *
 * Matched case-insensitively on the function's own name, wherever it is
 * called: in the parse tree, and in the text as a word followed by `(`, so
 * a call the parser misreads is refused all the same.
 */

interface DeniedFunctionGroup {
  /** Completes "Function <name> ... and is not allowed." */
  readonly reason: string;
  readonly names: readonly string[];
  /** Whole families (plugins' functions), so a new member is still caught. */
  readonly prefixes: readonly string[];
}

const DENIED_FUNCTIONS: readonly DeniedFunctionGroup[] = [
  { reason: 'reads files on the database server', names: ['load_file', 'binlog_gtid_pos', 'des_encrypt', 'des_decrypt'], prefixes: [] },
  { reason: 'changes a sequence', names: ['nextval', 'lastval', 'setval'], prefixes: [] },
  {
    reason: 'takes or releases a lock that outlives the query',
    names: ['get_lock', 'release_lock', 'release_all_locks', 'is_free_lock', 'is_used_lock'],
    prefixes: ['service_get_', 'service_release_', 'version_tokens_'],
  },
  {
    reason: 'waits on replication',
    names: ['master_pos_wait', 'master_gtid_wait', 'source_pos_wait', 'wait_for_executed_gtid_set', 'wait_until_sql_thread_after_gtids'],
    prefixes: [],
  },
  { reason: 'changes session state', names: ['last_insert_id'], prefixes: [] },
  {
    reason: 'changes server or replication state',
    names: ['set_firewall_mode', 'normalize_statement', 'read_firewall_users', 'read_firewall_whitelist'],
    prefixes: ['group_replication_', 'asynchronous_connection_failover_', 'audit_log_', 'mysql_firewall_', 'keyring_'],
  },
  { reason: 'runs commands or SQL on another server', names: ['sys_exec', 'sys_eval', 'sys_set', 'sys_get'], prefixes: ['spider_', 'lib_mysqludf_', 'http_'] },
];

const BY_NAME = new Map<string, string>();
for (const group of DENIED_FUNCTIONS) for (const name of group.names) BY_NAME.set(name, group.reason);

/** Why the function may not be called, or undefined when it may. */
export function deniedFunctionReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  const exact = BY_NAME.get(lower);
  if (exact !== undefined) return exact;
  return DENIED_FUNCTIONS.find((group) => group.prefixes.some((prefix) => lower.startsWith(prefix)))?.reason;
}
