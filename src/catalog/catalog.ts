/**
 * The catalog: everything the server keeps apart from artifact bytes, as
 * one port per concern (artifacts, shared queries, query history, request
 * counts, visualizations, the audit trail, leases and secrets), so each user depends on the port it
 * needs. One implementation is SQLite in the data dir (one process), the
 * other PostgreSQL shared by every replica; both run the same statements
 * (catalog-*.ts) and pass one contract suite. Every change of what the
 * usage counters count happens in the transaction that changes the
 * counters, so quotas hold however many replicas commit at once and no
 * start-up ever has to add anything up.
 */
import type { ArtifactsPort } from './ports/artifacts-port.ts';
import type { AuditPort } from './ports/audit-port.ts';
import type { LeasesPort } from './ports/leases-port.ts';
import type { QueryHistoryPort } from './ports/query-history-port.ts';
import type { RequestCountsPort } from './ports/request-counts-port.ts';
import type { SharedQueriesPort } from './ports/shared-queries-port.ts';
import type { VisualizationsPort } from './ports/visualizations-port.ts';

export type * from './ports/artifacts-port.ts';
export type * from './ports/audit-port.ts';
export type * from './ports/leases-port.ts';
export type * from './ports/query-history-port.ts';
export type * from './ports/request-counts-port.ts';
export type * from './ports/shared-queries-port.ts';
export type * from './ports/visualizations-port.ts';

/** What the catalog's database itself needs: a round trip, its upkeep, an end. */
export interface CatalogLifecycle {
  /** A cheap round trip for readiness: never work that grows with the store. */
  ping(): Promise<void>;
  /** One bounded step of the database's own upkeep (SQLite: checkpoint and incremental vacuum). */
  maintain(): Promise<void>;
  close(): Promise<void>;
}

export interface Catalog extends CatalogLifecycle, ArtifactsPort, SharedQueriesPort, RequestCountsPort, VisualizationsPort, LeasesPort, QueryHistoryPort, AuditPort {}

export interface CatalogOptions {
  principalQuotaBytes: number;
  workspaceQuotaBytes: number;
  /** Every replica's clock must agree to well within the shortest lease and TTL; tests move it by hand. */
  now?: () => Date;
}
