/**
 * The catalog's artifacts: commits charged against quotas, lookups scoped to
 * one principal, sessions, usage, and the bounded rounds of expiry and
 * collection. Blob locations are opaque strings chosen by the byte layer,
 * which must make each upload's location unique: a commit that revives an
 * unreferenced blob (one a collector may be deleting at that very moment)
 * adopts the committer's fresh upload instead of the old bytes, so
 * collection and commit never need a lock between them.
 */
import type { PlannedColumn } from '../../columns/column-plan.ts';
import type { ParquetPart } from '../../worker/export-types.ts';
import type { ArtifactState, Cap, Coverage } from '../../vocabulary.ts';

/** Who is asking: every lookup is scoped to one principal. */
export interface Owner {
  principal: string;
  sessionId: string;
}

export interface ArtifactMeta {
  id: string;
  state: ArtifactState;
  principal: string;
  sessionId: string;
  sql: string;
  datasource: string;
  columns: PlannedColumn[];
  rowCount: number;
  sizeBytes: number;
  coverage: Coverage;
  boundedBy: Cap | null;
  createdAt: string;
  expiresAt: string;
}

export interface SessionCopyResult {
  mapping: { sourceArtifactId: string; targetArtifactId: string }[];
}

/** A session as its readable artifacts make it up. */
export interface SessionSummary {
  sessionId: string;
  artifacts: number;
  logicalBytes: number;
  /** When its newest readable artifact was made. */
  lastUsedAt: string;
}

export interface SessionUsage {
  sessionId: string;
  artifacts: number;
  logicalBytes: number;
}

/** One artifact of an imported bundle, its blob uploaded to a location of the importer's own. */
export interface ImportedArtifact {
  sourceId: string;
  sql: string;
  datasource: string;
  columns: PlannedColumn[];
  rowCount: number;
  coverage: Coverage;
  boundedBy: Cap | null;
  blob: BlobRecord;
}

export interface ImportRequest {
  principal: string;
  sessionId: string;
  ttlSeconds: number;
  artifacts: ImportedArtifact[];
}

export type ImportOutcome =
  | {
      decision: 'CREATED';
      mapping: { sourceArtifactId: string; targetArtifactId: string }[];
      /** The uploads the catalog now references; any other upload of the import is garbage. */
      liveLocations: string[];
      /** Bytes that backed revived blobs before: nothing references them any more. */
      staleLocations: string[];
    }
  | { decision: 'DENIED'; message: string };

export interface SessionRelease {
  releasedArtifacts: number;
  releasedBytes: number;
}

export interface Usage {
  principal: { artifacts: number; logicalBytes: number; quotaBytes: number };
  workspace: { artifacts: number; physicalBytes: number; quotaBytes: number };
}

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

export interface ArtifactsPort {
  /** Quotas checked and counters charged in one transaction; a repeated commit returns the first artifact. */
  commit(request: CommitRequest): Promise<CatalogCommitOutcome>;
  /** Undefined for an id this principal never owned (or whose tombstone was purged): existence is never leaked. */
  find(principal: string, id: string): Promise<ArtifactRecord | undefined>;
  /** Readable (committed, unexpired) artifacts of a principal, newest first. */
  list(principal: string, request: ListRequest): Promise<ListResult>;
  /** Tombstones the artifact and releases its reference; false when the principal never owned it. Idempotent. */
  delete(principal: string, id: string): Promise<boolean>;
  /**
   * New references to the same blobs (only `artifactIds` when given: NOT_FOUND, nothing copied, when one is not a
   * readable artifact of this principal in the source session); QUOTA_EXCEEDED (nothing copied) past the principal quota.
   */
  copySession(principal: string, sourceSessionId: string, targetSessionId: string, ttlSeconds: number, artifactIds?: string[]): Promise<SessionCopyResult>;
  /** The principal's sessions that hold readable artifacts, most recently used first. */
  sessions(principal: string): Promise<SessionSummary[]>;
  sessionUsage(principal: string, sessionId: string): Promise<SessionUsage>;
  /** One session's readable artifacts with their blobs, oldest first. */
  sessionArtifacts(principal: string, sessionId: string): Promise<(ArtifactRecord & { blob: BlobRecord })[]>;
  /** Every artifact of an import in one transaction, quotas checked for all at once; DENIED commits nothing. */
  importArtifacts(request: ImportRequest): Promise<ImportOutcome>;
  /** Blobs in hash order after `after` (null: from the start), referenced or not. */
  blobsAfter(after: string | null, limit: number): Promise<BlobRecord[]>;
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
}
