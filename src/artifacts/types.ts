/**
 * The artifact store contract. The API and the AI tools depend on this
 * interface and never on files or a catalog: a driver decides where bytes and
 * metadata live (local files with an embedded catalog first; a PostgreSQL
 * catalog with object storage can follow without touching callers).
 * Capabilities are declared, so a read asking for more than a driver offers
 * is refused with UNSUPPORTED_CAPABILITY instead of reaching a backend.
 */
import type { PlannedColumn } from '../columns/column-plan.ts';

import type { AggregateFn, ArtifactState, Cap, Coverage, DownloadFormat, FilterOp, SortDirection } from '../vocabulary.ts';

export { FILTER_OPS } from '../vocabulary.ts';
export type { AggregateFn, ArtifactState, Coverage, DownloadFormat, FilterOp } from '../vocabulary.ts';

export interface Capabilities {
  projection: boolean;
  filterOps: FilterOp[];
  sort: boolean;
  aggregate: boolean;
  formats: DownloadFormat[];
}

/** One Parquet file of an artifact, as an export stages it and the store keeps it. */
export interface ParquetPart {
  /** File name inside the export's directory. */
  name: string;
  rows: number;
  bytes: number;
  /** SHA-256 of the part's bytes, hex. */
  sha256: string;
}

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

/** A finished export waiting to become an artifact. */
export interface StagedResult {
  stagingDir: string;
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
  rows: unknown[][];
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

export interface Download {
  contentType: string;
  fileName: string;
  /** The bytes, streamed with back-pressure; temporary files go when the stream ends or is cancelled. */
  body: ReadableStream<Uint8Array>;
}

export interface SessionCopyResult {
  mapping: { sourceArtifactId: string; targetArtifactId: string }[];
}

export interface SessionRelease {
  releasedArtifacts: number;
  releasedBytes: number;
}

export interface Usage {
  principal: { artifacts: number; logicalBytes: number; quotaBytes: number };
  workspace: { artifacts: number; physicalBytes: number; quotaBytes: number };
}

export interface CollectionReport {
  expired: number;
  blobsRemoved: number;
  bytesReclaimed: number;
  /** True when a batch limit stopped this round; the next round continues. */
  more: boolean;
}

export interface ArtifactPage {
  artifacts: ArtifactMeta[];
  nextCursor: string | null;
}

export interface ArtifactStore {
  readonly capabilities: Capabilities;
  /** A fresh directory for an export to write into; nothing there is visible until commit. */
  stagingDir(): string;
  commit(owner: Owner, staged: StagedResult, ttlSeconds: number): CommitOutcome;
  abort(stagingDir: string): void;
  /** Metadata of a readable artifact of this principal; NOT_FOUND or ARTIFACT_EXPIRED otherwise. */
  get(principal: string, id: string): ArtifactMeta;
  read(principal: string, id: string, request: ReadRequest): Promise<ReadPage>;
  aggregate(principal: string, id: string, request: AggregateRequest): Promise<AggregateResult>;
  download(principal: string, id: string, format: DownloadFormat): Promise<Download>;
  list(principal: string, sessionId: string | undefined, after: string | undefined, limit: number): ArtifactPage;
  /** Idempotent for the owner; NOT_FOUND for an id the caller never owned. */
  delete(principal: string, id: string): void;
  /** Copies references (never bytes) of a session's artifacts into another session of the same principal. */
  copySession(principal: string, sourceSessionId: string, targetSessionId: string, ttlSeconds: number): SessionCopyResult;
  /** Releases this session's references only; time grows with their number, not the store's size. */
  retireSession(principal: string, sessionId: string): SessionRelease;
  usage(principal: string): Usage;
  /** One bounded round of expiry and reclamation of unreferenced bytes. */
  collect(limits: { maxBlobs: number; maxBytes: number }): Promise<CollectionReport>;
  /** Drops leftovers of exports that never committed (a crash): run in the background after start. */
  sweepStaging(): Promise<number>;
  close(): void;
}
