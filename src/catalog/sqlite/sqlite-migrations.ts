/**
 * Versioned migrations of the SQLite catalog. Version 1 is the schema the
 * local store has always created (idempotent, so a data dir written by the
 * local store is adopted as it is); later versions add what the shared
 * catalog contract needs. Each migration runs once, inside BEGIN IMMEDIATE,
 * so two processes opening one file cannot both apply it.
 */
import type { SqliteDatabase } from '../../runtime/sqlite.ts';
import { CATALOG_SCHEMA } from './sqlite-schema-v1.ts';

export interface SqliteMigration {
  version: number;
  name: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: SqliteMigration[] = [
  { version: 1, name: 'artifacts, blobs and usage counters', sql: CATALOG_SCHEMA },
  {
    version: 2,
    name: 'release times, repeated commits, tombstone purge, leases and shared secrets',
    sql: `
ALTER TABLE artifacts ADD COLUMN released_at TEXT;
ALTER TABLE blobs ADD COLUMN released_at TEXT;
CREATE INDEX artifacts_repeat ON artifacts (principal, session_id, hash) WHERE state = 'COMMITTED';
CREATE INDEX artifacts_tombstones ON artifacts (COALESCE(released_at, expires_at)) WHERE state <> 'COMMITTED';
CREATE INDEX blobs_released ON blobs (released_at) WHERE refs <= 0;
CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE TABLE shared_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`,
  },
  {
    version: 3,
    name: 'running queries shared by replicas',
    sql: `
CREATE TABLE queries (id TEXT PRIMARY KEY, principal TEXT NOT NULL, replica TEXT NOT NULL, state TEXT NOT NULL, data TEXT NOT NULL,
  error TEXT, cancel_requested INTEGER NOT NULL DEFAULT 0, updated_at TEXT NOT NULL);
CREATE INDEX queries_cancels ON queries (replica) WHERE state = 'RUNNING' AND cancel_requested = 1;
CREATE INDEX queries_updated ON queries (updated_at);
`,
  },
  {
    version: 4,
    name: 'request counts, query admission and saved visualizations shared by replicas',
    sql: `
CREATE TABLE request_counts (scope TEXT NOT NULL, principal TEXT NOT NULL, window_start TEXT NOT NULL, requests INTEGER NOT NULL,
  PRIMARY KEY (scope, principal, window_start));
CREATE INDEX request_counts_window ON request_counts (window_start);
CREATE INDEX queries_running ON queries (principal) WHERE state = 'RUNNING';
CREATE TABLE visualizations (id TEXT PRIMARY KEY, principal TEXT NOT NULL, title TEXT, intent TEXT NOT NULL, chart TEXT NOT NULL,
  created_at TEXT NOT NULL);
`,
  },
  {
    version: 5,
    name: 'blobs found by location, for the sweep of uploads no blob references',
    sql: 'CREATE INDEX blobs_location ON blobs (location);',
  },
  {
    version: 6,
    name: 'the audit trail',
    sql: `
CREATE TABLE audit_entries (id TEXT PRIMARY KEY, at TEXT NOT NULL, principal TEXT, action TEXT NOT NULL, route TEXT NOT NULL,
  datasource TEXT, sql TEXT, artifact_id TEXT, outcome TEXT NOT NULL, error_code TEXT, row_count INTEGER, byte_count INTEGER,
  duration_ms INTEGER, request_id TEXT);
CREATE INDEX audit_entries_at ON audit_entries (at, id);
CREATE INDEX audit_entries_principal ON audit_entries (principal, at, id);
`,
  },
  {
    version: 7,
    name: 'query history, and visualizations listed per principal',
    sql: `
CREATE TABLE query_history (id TEXT PRIMARY KEY, principal TEXT NOT NULL, datasource TEXT NOT NULL, sql TEXT NOT NULL, state TEXT NOT NULL,
  submitted_at TEXT NOT NULL, finished_at TEXT, row_count INTEGER, artifact_id TEXT, error_code TEXT);
CREATE INDEX query_history_by_principal ON query_history (principal, submitted_at, id);
CREATE INDEX query_history_submitted ON query_history (submitted_at);
CREATE INDEX query_history_running ON query_history (submitted_at) WHERE state = 'RUNNING';
CREATE INDEX visualizations_by_principal ON visualizations (principal, created_at, id);
`,
  },
];

export function migrateSqlite(db: SqliteDatabase, now: Date): void {
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const applied = new Set(db.prepare('SELECT version FROM schema_migrations').all<{ version: number }>().map((r) => r.version));
    for (const migration of SQLITE_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, now.toISOString());
    }
  })();
}
