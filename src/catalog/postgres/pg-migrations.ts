/**
 * Versioned migrations of the PostgreSQL catalog, in its own schema. Every
 * replica runs `migratePg` at start; a transaction-scoped advisory lock keyed
 * by the schema makes them take turns, so each migration is applied exactly
 * once and a replica that waited finds the work done. Migrations only ever
 * add: a replica of the previous release keeps working on a schema a newer
 * one migrated, which is what a rolling upgrade needs.
 */
import type { CatalogTx } from '../catalog-db.ts';

export interface PgMigration {
  version: number;
  name: string;
  statements: string[];
}

export const PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    name: 'artifacts, blobs and usage counters',
    statements: [
      `CREATE TABLE blobs (hash text PRIMARY KEY, location text NOT NULL, parts text NOT NULL, size_bytes bigint NOT NULL,
        refs integer NOT NULL, released_at timestamptz)`,
      `CREATE TABLE artifacts (id text PRIMARY KEY, principal text NOT NULL, session_id text NOT NULL, hash text NOT NULL,
        state text NOT NULL, datasource text NOT NULL, sql text NOT NULL, columns text NOT NULL, row_count bigint NOT NULL,
        size_bytes bigint NOT NULL, coverage text NOT NULL, bounded_by text, created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL, released_at timestamptz)`,
      'CREATE INDEX artifacts_owner ON artifacts (principal, session_id, created_at, id)',
      'CREATE INDEX artifacts_by_principal ON artifacts (principal, created_at, id)',
      `CREATE INDEX artifacts_expiry ON artifacts (expires_at) WHERE state = 'COMMITTED'`,
      `CREATE INDEX artifacts_repeat ON artifacts (principal, session_id, hash) WHERE state = 'COMMITTED'`,
      `CREATE INDEX artifacts_tombstones ON artifacts ((COALESCE(released_at, expires_at))) WHERE state <> 'COMMITTED'`,
      'CREATE INDEX blobs_released ON blobs (released_at) WHERE refs <= 0',
      'CREATE TABLE principal_usage (principal text PRIMARY KEY, artifacts bigint NOT NULL, logical_bytes bigint NOT NULL)',
      `CREATE TABLE workspace_usage (id integer PRIMARY KEY CHECK (id = 1), artifacts bigint NOT NULL, blobs bigint NOT NULL,
        physical_bytes bigint NOT NULL)`,
      'INSERT INTO workspace_usage (id, artifacts, blobs, physical_bytes) VALUES (1, 0, 0, 0)',
    ],
  },
  {
    version: 2,
    name: 'leases and shared secrets',
    statements: [
      'CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, expires_at timestamptz NOT NULL)',
      'CREATE TABLE shared_secrets (name text PRIMARY KEY, value text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    ],
  },
  {
    version: 3,
    name: 'running queries shared by replicas',
    statements: [
      `CREATE TABLE queries (id text PRIMARY KEY, principal text NOT NULL, replica text NOT NULL, state text NOT NULL, data text NOT NULL,
        error text, cancel_requested integer NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL)`,
      `CREATE INDEX queries_cancels ON queries (replica) WHERE state = 'RUNNING' AND cancel_requested = 1`,
      'CREATE INDEX queries_updated ON queries (updated_at)',
    ],
  },
  {
    version: 4,
    name: 'request counts, query admission and saved visualizations shared by replicas',
    statements: [
      `CREATE TABLE request_counts (scope text NOT NULL, principal text NOT NULL, window_start timestamptz NOT NULL, requests bigint NOT NULL,
        PRIMARY KEY (scope, principal, window_start))`,
      'CREATE INDEX request_counts_window ON request_counts (window_start)',
      `CREATE INDEX queries_running ON queries (principal) WHERE state = 'RUNNING'`,
      `CREATE TABLE visualizations (id text PRIMARY KEY, principal text NOT NULL, title text, intent text NOT NULL, chart text NOT NULL,
        created_at timestamptz NOT NULL)`,
    ],
  },
  {
    version: 5,
    name: 'blobs found by location, for the sweep of uploads no blob references',
    statements: ['CREATE INDEX blobs_location ON blobs (location)'],
  },
  {
    version: 6,
    name: 'the audit trail',
    statements: [
      `CREATE TABLE audit_entries (id text PRIMARY KEY, at timestamptz NOT NULL, principal text, action text NOT NULL, route text NOT NULL,
        datasource text, sql text, artifact_id text, outcome text NOT NULL, error_code text, row_count bigint, byte_count bigint,
        duration_ms bigint, request_id text)`,
      'CREATE INDEX audit_entries_at ON audit_entries (at, id)',
      'CREATE INDEX audit_entries_principal ON audit_entries (principal, at, id)',
    ],
  },
  {
    version: 7,
    name: 'query history, and visualizations listed per principal',
    statements: [
      `CREATE TABLE query_history (id text PRIMARY KEY, principal text NOT NULL, datasource text NOT NULL, sql text NOT NULL, state text NOT NULL,
        submitted_at timestamptz NOT NULL, finished_at timestamptz, row_count bigint, artifact_id text, error_code text)`,
      'CREATE INDEX query_history_by_principal ON query_history (principal, submitted_at, id)',
      'CREATE INDEX query_history_submitted ON query_history (submitted_at)',
      `CREATE INDEX query_history_running ON query_history (submitted_at) WHERE state = 'RUNNING'`,
      'CREATE INDEX visualizations_by_principal ON visualizations (principal, created_at, id)',
    ],
  },
];

export function quoteSchema(schema: string): string {
  return `"${schema}"`;
}

/** Runs inside one transaction, so the advisory lock is held until every migration it applied has committed. */
export async function migratePg(tx: CatalogTx, schema: string): Promise<void> {
  const q = quoteSchema(schema);
  await tx.all('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`sluice-catalog-migrations:${schema}`]);
  // A migration may build an index over a large table: the usual statement timeout does not apply.
  await tx.run('SET LOCAL statement_timeout = 0');
  await tx.run(`CREATE SCHEMA IF NOT EXISTS ${q}`);
  await tx.run(`SET LOCAL search_path TO ${q}`);
  await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  const applied = new Set((await tx.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
  for (const migration of PG_MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) await tx.run(statement);
    await tx.run('INSERT INTO schema_migrations (version, name) VALUES (?, ?)', [migration.version, migration.name]);
  }
}
