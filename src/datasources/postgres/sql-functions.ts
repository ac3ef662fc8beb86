/**
 * The functions a read-only query may not call. A READ ONLY transaction stops
 * writes to tables, but not these: they act outside the database, or have side
 * effects PostgreSQL does not count as writes, and the datasource user may be a
 * superuser who is allowed to call every one of them.
 *
 * Names are matched on the last component of the call (so a schema prefix does
 * not hide them) and case-insensitively (a quoted "PG_READ_FILE" is a different
 * function to PostgreSQL, but refusing it too costs nothing and is safer).
 */

export interface DeniedFunctionGroup {
  /** Completes "Function <name> ... and is not allowed." */
  readonly reason: string;
  readonly names: readonly string[];
  /** Whole families, so a new member in a later PostgreSQL release is still caught. */
  readonly prefixes: readonly string[];
}

export const DENIED_FUNCTIONS: readonly DeniedFunctionGroup[] = [
  // Server files: reveal or change the host's file system and configuration.
  {
    reason: 'reads or writes files on the database server',
    names: [
      'pg_read_file', 'pg_read_binary_file', 'pg_stat_file', 'pg_logdir_ls', 'pg_current_logfile',
      'pg_show_all_file_settings', 'pg_hba_file_rules', 'pg_ident_file_mappings',
    ],
    prefixes: ['pg_ls_', 'pg_file_'],
  },
  // Large objects live outside table permissions; lo_import/lo_export touch server files.
  {
    reason: 'reads or writes large objects',
    names: ['loread', 'lowrite'],
    prefixes: ['lo_'],
  },
  // Connections to other servers escape this datasource and its transaction.
  {
    reason: 'connects to another database server',
    names: [],
    prefixes: ['dblink'],
  },
  // Run SQL given as text, which this check never sees (it could hide any call here).
  {
    reason: 'runs SQL text that cannot be checked',
    names: ['query_to_xml', 'query_to_xml_and_xmlschema', 'query_to_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema', 'ts_stat', 'ts_rewrite'],
    prefixes: [],
  },
  // Settings outlive the statement and can switch off the guards around it.
  {
    reason: 'changes server settings',
    names: ['set_config'],
    prefixes: [],
  },
  // Signal or control backends and the server itself.
  {
    reason: 'signals or controls the database server',
    names: [
      'pg_terminate_backend', 'pg_cancel_backend', 'pg_reload_conf', 'pg_rotate_logfile', 'pg_rotate_logfile_old',
      'pg_promote', 'pg_switch_wal', 'pg_switch_xlog', 'pg_create_restore_point', 'pg_start_backup', 'pg_stop_backup',
      'pg_backup_start', 'pg_backup_stop', 'pg_log_backend_memory_contexts', 'pg_log_standby_snapshot',
      'pg_import_system_collations', 'pg_stat_statements_reset', 'pg_prewarm', 'autoprewarm_start_worker',
      'autoprewarm_dump_now', 'pg_buffercache_evict',
    ],
    prefixes: ['pg_stat_reset', 'pg_wal_replay_', 'pg_xlog_replay_'],
  },
  // Write index, visibility or heap data directly, around the READ ONLY check.
  {
    reason: 'modifies stored data directly',
    names: [
      'brin_summarize_new_values', 'brin_summarize_range', 'brin_desummarize_range', 'gin_clean_pending_list',
      'pg_truncate_visibility_map', 'heap_force_kill', 'heap_force_freeze',
    ],
    prefixes: ['binary_upgrade_'],
  },
  // Replication slots and origins hold WAL and change what subscribers receive.
  {
    reason: 'changes replication state',
    names: [
      'pg_create_physical_replication_slot', 'pg_create_logical_replication_slot', 'pg_drop_replication_slot',
      'pg_copy_physical_replication_slot', 'pg_copy_logical_replication_slot', 'pg_replication_slot_advance',
      'pg_sync_replication_slots',
    ],
    prefixes: ['pg_replication_origin_', 'pg_logical_'],
  },
  // Advisory locks can be held past the query and block other sessions.
  {
    reason: 'takes or releases advisory locks',
    names: [],
    prefixes: ['pg_advisory_', 'pg_try_advisory_'],
  },
  // Side effects that PostgreSQL allows inside a READ ONLY transaction.
  { reason: 'changes a sequence', names: ['nextval', 'setval'], prefixes: [] },
  { reason: 'assigns a transaction id', names: ['txid_current', 'pg_current_xact_id'], prefixes: [] },
  { reason: 'sends notifications to other sessions', names: ['pg_notify'], prefixes: [] },
];

const BY_NAME = new Map<string, string>();
for (const group of DENIED_FUNCTIONS) {
  for (const name of group.names) BY_NAME.set(name, group.reason);
}

/** Why the function may not be called, or undefined when it may. */
export function deniedFunctionReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  const exact = BY_NAME.get(lower);
  if (exact !== undefined) return exact;
  for (const group of DENIED_FUNCTIONS) {
    if (group.prefixes.some((prefix) => lower.startsWith(prefix))) return group.reason;
  }
  return undefined;
}
