/**
 * The artifact store contract. The API, the query use-case and the AI tools
 * depend on this interface and never on files, keys or a catalog: the store
 * composes a catalog (SQLite in the data dir, or PostgreSQL shared by
 * replicas) with a byte store (a local directory, or an S3-compatible
 * bucket read through a bounded local cache). Everything is asynchronous,
 * since either half may be across a network. Staging is a handle: an export
 * writes into its scratch directory, then the handle commits or aborts;
 * reads go through the store; downloads are streams or, where the bytes
 * store can sign one, a short-lived link. Capabilities are declared, so a
 * read asking for more than the store offers is refused with
 * UNSUPPORTED_CAPABILITY instead of reaching a backend.
 */
import type { PlannedColumn } from '../columns/column-plan.ts';
import type { FileStamp, ParquetPart } from '../worker/export-types.ts';
import type { ArtifactMeta, Owner, SessionCopyResult, SessionRelease, SessionSummary, SessionUsage, Usage } from '../catalog/ports/artifacts-port.ts';
import type { SessionBundle } from './bundle/export-bundle.ts';
import type { ImportOptions } from './bundle/import-session.ts';
import type { StoreCheckRound } from './store/store-check.ts';

import type { AggregateFn, ArtifactState, Cap, Coverage, DownloadFormat, FilterOp, SortDirection } from '../vocabulary.ts';

export { FILTER_OPS } from '../vocabulary.ts';
export type { ParquetPart } from '../worker/export-types.ts';
export type { ArtifactMeta, Owner, SessionCopyResult, SessionRelease, SessionSummary, SessionUsage, Usage } from '../catalog/ports/artifacts-port.ts';
export type { SessionBundle } from './bundle/export-bundle.ts';
export type { ImportOptions } from './bundle/import-session.ts';
export type { StoreCheckRound } from './store/store-check.ts';
export type { AggregateFn, ArtifactState, Coverage, DownloadFormat, FilterOp } from '../vocabulary.ts';

export interface Capabilities {
  projection: boolean;
  filterOps: FilterOp[];
  sort: boolean;
  aggregate: boolean;
  formats: DownloadFormat[];
}

/** A finished export waiting to become an artifact (its parts are files in the staging scratch directory). */
export interface StagedResult {
  parts: ParquetPart[];
  columns: PlannedColumn[];
  rowCount: number;
  coverage: Coverage;
  boundedBy: Cap | null;
  sql: string;
  datasource: string;
}

export type CommitOutcome =
  | { decision: 'CREATED'; artifact: ArtifactMeta }
  | { decision: 'DENIED'; reason: 'QUOTA_EXCEEDED'; message: string };

export interface Filter {
  column: string;
  op: string;
  value?: unknown;
}

export interface SortKey {
  column: string;
  direction: SortDirection;
}

export interface ReadRequest {
  columns?: string[] | undefined;
  filters?: Filter[] | undefined;
  sort?: SortKey[] | undefined;
  limit: number;
  /** Rows of the (filtered, sorted) result to skip; decoded from a cursor by the caller. */
  offset: number;
}

export interface ReadPage {
  columns: { name: string; type: string }[];
  /**
   * Each row as its JSON text: the array of its values, encoded as the read
   * API answers them. Kept as text, a page costs the page cache one string a
   * row rather than an object per value (which every full collection of the
   * API thread's heap would walk), and an answer joins them as they are.
   */
  rowsJson: string[];
  /** True when rows past this page exist. */
  more: boolean;
}

export interface AggregateRequest {
  groupBy?: string[] | undefined;
  metrics: { fn: AggregateFn; column?: string | undefined; as?: string | undefined }[];
  filters?: Filter[] | undefined;
  sort?: SortKey[] | undefined;
  limit: number;
}

export interface AggregateResult {
  columns: { name: string; type: string }[];
  rows: unknown[][];
  /** True when more groups exist than `limit` allowed. */
  more: boolean;
}

export type Download =
  | {
      kind: 'stream';
      contentType: string;
      fileName: string;
      /** The bytes, streamed with back-pressure; temporary files and leases go when the stream ends or is cancelled. */
      body: ReadableStream<Uint8Array>;
    }
  /** The bytes straight from storage: a pre-signed link that expires within minutes (authorization was checked first). */
  | { kind: 'redirect'; url: string; expiresInSeconds: number };

/**
 * One export's way into the store. The worker writes Parquet parts into
 * `scratchDir` (a local directory of this export's own, never where
 * artifacts live); then exactly one of commit or abort. Nothing staged is
 * visible or counted before commit, and whatever commit does not keep is
 * removed by it.
 */
export interface Staging {
  readonly scratchDir: string;
  /**
   * A part the export has finished (its file in scratchDir is final): the store may start keeping it now.
   * `hashedAt`: the file's stamp when the export took its SHA-256.
   */
  stagePart(part: ParquetPart, hashedAt?: FileStamp): void;
  commit(owner: Owner, staged: StagedResult, ttlSeconds: number): Promise<CommitOutcome>;
  abort(): Promise<void>;
}

/** What the store needs before it can serve, for /readyz: empty when ready. */
export type StoreHealth = ('catalog' | 'artifact storage')[];

export interface CollectionReport {
  /** False when another replica holds the collection lease: this round did nothing. */
  ran: boolean;
  expired: number;
  blobsRemoved: number;
  bytesReclaimed: number;
  /** Uploads no blob references (a replica died between its upload and its commit), removed past a grace period. */
  orphansRemoved: number;
  tombstonesPurged: number;
  /** True when a batch limit stopped this round; the next round continues. */
  more: boolean;
}

export interface ArtifactPage {
  artifacts: ArtifactMeta[];
  nextCursor: string | null;
}

export interface ArtifactStore {
  readonly capabilities: Capabilities;
  /** A fresh staging for one export: local scratch space only, so it works while the catalog or the bucket is down. */
  begin(): Promise<Staging>;
  /** Metadata of a readable artifact of this principal; NOT_FOUND or ARTIFACT_EXPIRED otherwise. */
  get(principal: string, id: string): Promise<ArtifactMeta>;
  read(principal: string, id: string, request: ReadRequest): Promise<ReadPage>;
  aggregate(principal: string, id: string, request: AggregateRequest): Promise<AggregateResult>;
  download(principal: string, id: string, format: DownloadFormat): Promise<Download>;
  /** `after` is the opaque `nextCursor` of the page before. */
  list(principal: string, sessionId: string | undefined, after: string | undefined, limit: number): Promise<ArtifactPage>;
  /** Idempotent for the owner; NOT_FOUND for an id the caller never owned. */
  delete(principal: string, id: string): Promise<void>;
  /**
   * Copies references (never bytes) of a session's artifacts, or of `artifactIds` only, into another session of
   * the same principal; an id that is not a readable artifact of the caller in that session is NOT_FOUND, nothing copied.
   */
  copySession(principal: string, sourceSessionId: string, targetSessionId: string, ttlSeconds: number, artifactIds?: string[]): Promise<SessionCopyResult>;
  /** The caller's sessions holding readable artifacts, most recently used first. */
  sessions(principal: string): Promise<SessionSummary[]>;
  sessionUsage(principal: string, sessionId: string): Promise<SessionUsage>;
  /** A session's artifacts and their parts as a streamed tar bundle; NOT_FOUND when the caller has none in it. */
  exportSession(principal: string, sessionId: string): Promise<SessionBundle>;
  /** A bundle's artifacts into a session of the caller, all or none; a bad bundle is VALIDATION_ERROR with details.reason. */
  importSession(principal: string, sessionId: string, body: AsyncIterable<Uint8Array>, options: ImportOptions): Promise<SessionCopyResult>;
  /** One bounded round of the walk of the catalog against the bytes; `cursor` continues a walk. */
  checkStore(request: { cursor?: string | undefined; limit: number }): Promise<StoreCheckRound>;
  /** Releases this session's references only; time grows with their number, not the store's size. */
  retireSession(principal: string, sessionId: string): Promise<SessionRelease>;
  usage(principal: string): Promise<Usage>;
  /** One bounded round of expiry, reclamation and sweeping, by one replica at a time. */
  collect(limits: { maxBlobs: number; maxBytes: number }): Promise<CollectionReport>;
  /** What cannot be reached now; never work that grows with the store. */
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
