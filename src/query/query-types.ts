/**
 * The public shape of a query's state (the `data` of /api/queries), as the
 * contract names it. Built from a QueryRecord by query-view.ts.
 */
import type { ColumnOut } from '../columns/column-plan.ts';
import type { ErrorCode } from '../errors.ts';
import type { CompletenessStatus, Coverage, Decision, LimitSource, PreviewBound, QueryState } from '../vocabulary.ts';
import type { CutCell } from '../columns/cell-cut.ts';

export type { CompletenessStatus, Decision, QueryState } from '../vocabulary.ts';

export interface Completeness {
  status: CompletenessStatus;
  returnedRows: number;
  totalRows: number | null;
  boundedBy: PreviewBound | null;
  /** Who set the limit named in boundedBy: the server's configuration or this request. */
  limitSetBy: LimitSource | null;
}

/** A query's preview: its first rows within the preview's bounds, and the cells cut to the cell bound. */
export interface QueryPreview {
  columns: ColumnOut[];
  rows: unknown[][];
  cutCells: CutCell[];
}

export interface ArtifactDecision {
  decision: Decision;
  /** A stable code for every decision but CREATED, e.g. QUOTA_EXCEEDED or PREVIEW_COMPLETE. */
  reason?: string;
  /** What happened, for a person. */
  message?: string;
  coverage?: Coverage;
  id?: string;
  format?: 'parquet';
  rowCount?: number;
  sizeBytes?: number;
  expiresAt?: string;
}

export interface QueryData {
  queryId: string;
  state: QueryState;
  preview: QueryPreview;
  completeness: Completeness;
  artifact: ArtifactDecision | null;
  progress: { rowsWritten: number; bytesWritten: number; elapsedMs: number };
}

/** A query the use-case accepted (planned and admitted), as told to whoever watches it (the history). */
export interface StartedQuery {
  queryId: string;
  principal: string;
  /** The configured datasource it runs on. */
  datasource: string;
  /** The statement as the caller sent it. */
  sql: string;
  submittedAt: string;
}

/** A query that has ended, as told to whoever watches the query use-case (metrics; the audit; the history). */
export interface EndedQuery extends StartedQuery {
  /** The request that submitted it, and that request's route template (unknown outside a request). */
  requestId: string | null;
  route: string | null;
  state: Exclude<QueryState, 'RUNNING'>;
  errorCode: ErrorCode | null;
  /** Rows the export took from the database and their bytes as CSV text (what the byte cap measures), also when it failed or was cancelled part way. */
  rows: number;
  bytes: number;
  durationMs: number;
  finishedAt: string;
  /** The artifact it created, if any. */
  artifactId: string | null;
}
