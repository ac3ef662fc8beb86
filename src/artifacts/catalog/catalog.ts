/**
 * The artifact catalog contract: everything the store keeps about artifacts
 * apart from their bytes. One implementation is SQLite in the data dir (one
 * process), the other PostgreSQL shared by every replica; both run the same
 * statements (catalog-*.ts) and pass one contract suite. Every change of
 * what the usage counters count happens in the transaction that changes
 * the counters, so quotas hold however many replicas commit at once and no
 * start-up ever has to add anything up.
 *
 * Blob locations are opaque strings chosen by the byte layer, which must
 * make each upload's location unique: a commit that revives an unreferenced
 * blob (one a collector may be deleting at that very moment) adopts the
 * committer's fresh upload instead of the old bytes, so collection and
 * commit never need a lock between them.
 */
import type { PlannedColumn } from '../../columns/column-plan.ts';
import type { ArtifactMeta, Coverage, Owner, ParquetPart, SessionCopyResult, SessionRelease, Usage } from '../types.ts';
import type { ErrorData } from '../../errors.ts';
import type { Cap, QueryState } from '../../vocabulary.ts';


/** The content of an artifact as the byte layer stored it. */
export interface BlobRecord {
  /** SHA-256 over the parts' hashes: equal content, equal hash. */
  hash: string;
  location: string;
  parts: ParquetPart[];
  sizeBytes: number;
}

export interface CommitRequest {
  owner: Owner;
  blob: BlobRecord;
  sql: string;
  datasource: string;
  columns: PlannedColumn[];
  rowCount: number;
  coverage: Coverage;
  boundedBy: Cap | null;
  ttlSeconds: number;
}

export type CatalogCommitOutcome =
  | {
      decision: 'CREATED';
      artifact: ArtifactMeta;
      /** True when this exact commit (principal, session, blob, sql, datasource) was already made: nothing was charged again. */
      repeated: boolean;
      /** Where the blob's bytes live now; the caller's own upload is garbage unless it is this location. */
      liveLocation: string;
      /** Bytes that backed the blob before this commit revived it: nothing references them any more. */
      staleLocation: string | null;
    }
  | { decision: 'DENIED'; reason: 'QUOTA_EXCEEDED'; message: string };

/** An artifact in any state, with its blob while the blob is still catalogued. */
export interface ArtifactRecord {
  /** `state` is EXPIRED as soon as the TTL has passed, before any collection round has run. */
  meta: ArtifactMeta;
  blob: BlobRecord | null;
}

/** A keyset position in a listing (newest first): opaque to callers, signed by whoever hands it out. */
export interface ListPosition {
  createdAt: string;
  id: string;
}

export interface ListRequest {
  sessionId?: string | undefined;
  after?: ListPosition | undefined;
  limit: number;
}

export interface ListResult {
  artifacts: ArtifactMeta[];
  next: ListPosition | null;
}

/** One bounded round: `more` is true when the limit stopped it and the next round continues. */
export interface RoundResult {
  count: number;
  more: boolean;
}

export interface SharedQuery {
  id: string;
  principal: string;
  /** The replica running it. */
  replica: string;
  state: QueryState;
  /** The query's `data` as the API answers it. */
  data: unknown;
  /** For a FAILED query: its error. */
  error: ErrorData | null;
}

export interface SharedQueryState extends SharedQuery {
  cancelRequested: boolean;
  /** When the owner last wrote: a RUNNING query whose owner stopped writing has lost its replica. */
  updatedAt: Date;
}

export type QueryAdmission = { admitted: true } | { admitted: false; running: number };

export interface RequestCount {
  /** Which limiter counted (one per route family, as each keeps its own budget). */
  scope: string;
  principal: string;
  windowStart: Date;
  requests: number;
}

export interface StoredVisualization {
  id: string;
  principal: string;
  title: string | null;
  intent: unknown;
  chart: unknown;
  createdAt: string;
}

export interface Catalog {
  /** A cheap round trip for readiness: never work that grows with the store. */
  ping(): Promise<void>;
  /** Quotas checked and counters charged in one transaction; a repeated commit returns the first artifact. */
  commit(request: CommitRequest): Promise<CatalogCommitOutcome>;
  /** Undefined for an id this principal never owned (or whose tombstone was purged): existence is never leaked. */
  find(principal: string, id: string): Promise<ArtifactRecord | undefined>;
  /** Readable (committed, unexpired) artifacts of a principal, newest first. */
  list(principal: string, request: ListRequest): Promise<ListResult>;
  /** Tombstones the artifact and releases its reference; false when the principal never owned it. Idempotent. */
  delete(principal: string, id: string): Promise<boolean>;
  /** New references to the same blobs; QUOTA_EXCEEDED (nothing copied) when the copy would pass the principal quota. */
  copySession(principal: string, sourceSessionId: string, targetSessionId: string, ttlSeconds: number): Promise<SessionCopyResult>;
  retireSession(principal: string, sessionId: string): Promise<SessionRelease>;
  usage(principal: string): Promise<Usage>;
  /** Tombstones at most `limit` artifacts past their TTL. */
  expireRound(limit: number): Promise<RoundResult>;
  /** Unreferenced blobs released before `olderThan`: a blob released later may be about to be referenced again. */
  unreferencedBlobs(olderThan: Date, limit: number): Promise<BlobRecord[]>;
  /** Forgets a blob whose bytes at `location` are gone; false when it was referenced or revived meanwhile. */
  dropBlob(hash: string, location: string): Promise<boolean>;
  blob(hash: string): Promise<BlobRecord | undefined>;
  /** The blob whose bytes are at an upload location (locations are chosen before content is known, so this is how a sweep tells). */
  blobAtLocation(location: string): Promise<BlobRecord | undefined>;
  /** Removes at most `limit` tombstones released before `olderThan`; their ids then answer NOT_FOUND. */
  purgeTombstones(olderThan: Date, limit: number): Promise<RoundResult>;
  /** True when `holder` now holds the lease (fresh, or renewed, or taken over after it expired). */
  tryLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** False when the lease was lost (expired and taken, or never held): the holder must stop. */
  renewLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** The stored value, or `create()`'s stored if there was none; every replica gets the same one. */
  sharedSecret(name: string, create: () => string): Promise<string>;
  /** Writes a query's state as its replica sees it (insert or update). */
  putQuery(query: SharedQuery): Promise<void>;
  findQuery(principal: string, id: string): Promise<SharedQueryState | undefined>;
  /** Raises the cancel flag of a running query; false when there is none of this principal. */
  requestCancel(principal: string, id: string): Promise<boolean>;
  /** Running queries of a replica whose cancel was asked for elsewhere. */
  cancelRequestsFor(replica: string): Promise<string[]>;
  purgeQueries(olderThan: Date, limit: number): Promise<RoundResult>;
  /** One bounded step of the database's own upkeep (SQLite: checkpoint and incremental vacuum). */
  maintain(): Promise<void>;
  /**
   * Records `query` (RUNNING) unless its principal already has `cap` running queries written since
   * `aliveSince`, on any replica; the check and the record are one transaction under the principal's lock.
   */
  admitQuery(query: SharedQuery, cap: number, aliveSince: Date): Promise<QueryAdmission>;
  /** Adds request counts, then answers every count of `principals` in windows from `since` on. */
  countRequests(added: RequestCount[], principals: string[], since: Date): Promise<RequestCount[]>;
  purgeRequestCounts(olderThan: Date, limit: number): Promise<RoundResult>;
  saveVisualization(saved: StoredVisualization): Promise<void>;
  /** Undefined for an id this principal never saved. */
  findVisualization(principal: string, id: string): Promise<StoredVisualization | undefined>;
  close(): Promise<void>;
}

export interface CatalogOptions {
  principalQuotaBytes: number;
  workspaceQuotaBytes: number;
  /** Every replica's clock must agree to well within the shortest lease and TTL; tests move it by hand. */
  now?: () => Date;
}
