/**
 * What an export is asked to do and what it reports back. Plain data: these
 * values cross the boundary between the API thread and a query worker.
 */
import type { ColumnOut, PlannedColumn } from '../columns/column-plan.ts';
import type { CutCell } from '../columns/cell-cut.ts';

export type { CutCell } from '../columns/cell-cut.ts';
import type { Cap, Materialize } from '../vocabulary.ts';
import type { FileStamp } from '../runtime/digest-file.ts';

export type { Cap, Materialize } from '../vocabulary.ts';
export type { FileStamp } from '../runtime/digest-file.ts';

/** What the statement check found the statement to be: the export runs an EXPLAIN through a cursor. */
export type StatementKind = 'select' | 'explain';

/** One Parquet file of an artifact, as an export stages it and the store keeps it. */
export interface ParquetPart {
  /** File name inside the export's directory. */
  name: string;
  rows: number;
  bytes: number;
  /** SHA-256 of the part's bytes, hex. */
  sha256: string;
}

export interface Limits {
  maxRows: number;
  maxBytes: number;
  maxDurationMs: number;
}

/** A setting and the value a query's transaction gives it from the caller's claims (row-level scope). */
export interface ScopeSetting {
  name: string;
  value: string;
}

export interface ExportRequest {
  sql: string;
  kind: StatementKind;
  params: unknown[];
  previewRows: number;
  /** The preview's size bounds: bytes of its JSON, and the longest value a cell shows, in characters. */
  previewBytes: number;
  previewCellChars: number;
  materialize: Materialize;
  limits: Limits;
  /** A directory of this export's own; removed by the caller when the export is not kept. */
  stagingDir: string;
  /**
   * Settings from the caller's claims that the statement's transaction runs
   * under (row-level scope); only PostgreSQL is ever given any.
   */
  scope?: ScopeSetting[];
}

export interface PreviewData {
  columns: ColumnOut[];
  rows: unknown[][];
  /** Cells cut to the cell bound, in row then column order. */
  cutCells: CutCell[];
  /** True when these rows, whole, are the whole result. */
  complete: boolean;
  /** True when the preview's size bounds cut it: rows left out for bytes, or a cell cut. */
  bounded: boolean;
}

export interface ExportResult {
  columns: PlannedColumn[];
  /** Rows that reached the result (the artifact's rows when it is kept). */
  rows: number;
  /** CSV bytes of those rows, the measure the byte cap applies to. */
  bytes: number;
  cappedBy: Cap | null;
  completeInPreview: boolean;
  /** Rows the preview shows. */
  previewShown: number;
  /** The preview's size bounds cut it (rows left out for bytes, or a cell cut). */
  previewBounded: boolean;
  /** The Parquet parts when the result is to be kept as an artifact, else null. */
  parts: ParquetPart[] | null;
  /** Why the artifact could not be written (the disk filled), when the preview could still be given. */
  storageFailure: string | null;
}

/** How an export reports while it runs (inside the worker, to the message port). */
export interface ExportHooks {
  onPreview(preview: PreviewData): void;
  onProgress(rowsWritten: number, bytesWritten: number): void;
  /**
   * A part is finished: its file is final, so the store can start uploading it while the export goes on.
   * `hashedAt` is the file's stamp when its SHA-256 was taken (the store on the same disk need not hash it again).
   */
  onPart(part: ParquetPart, hashedAt: FileStamp): void;
  /** Registers the function that stops this export; called with the reason. */
  onStopper(stop: (reason: 'cancel' | Cap) => void): void;
}
