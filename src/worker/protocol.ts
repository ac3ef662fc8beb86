/**
 * The messages between the API thread and a query worker, shared by both
 * sides. Plain data only: errors travel as ErrorData (code, message, details
 * and status), never as thrown objects; log lines travel as `log` messages.
 */
import type { ParquetPart } from './export-types.ts';
import type { StorageKind } from '../columns/column-plan.ts';
import type { ErrorData } from '../errors.ts';
import type { ExportRequest, ExportResult, FileStamp, PreviewData } from './export-types.ts';

/** Which datasource an export reads: the worker opens it with the export driver of its kind. */
export interface DatasourceAddress {
  kind: string;
  url: string;
}

export interface ExportTask {
  type: 'export';
  datasource: DatasourceAddress;
  request: ExportRequest;
}

/** A DuckDB statement over stored Parquet whose single column is one JSON text per row. */
export interface ReadTask {
  type: 'read';
  sql: string;
  params: (string | number | boolean | null)[];
  /**
   * A plain page: a few rows of one or two row groups. It runs on the
   * worker's single-threaded DuckDB, where a statement that small costs
   * less CPU and time than on one whose second thread wakes for it.
   */
  small?: boolean;
}

/**
 * Rows of a window of one stored part (row-windows.ts): the worker reads
 * the window with `sql` when it does not keep it already, and answers rows
 * `from` to `to` (exclusive) of it, encoded in JavaScript by `storages`.
 */
export interface WindowTask {
  type: 'read-window';
  /** What the window holds: its part's content hash, its first row and its columns. */
  key: string;
  /** The window's rows in order, one stored column each in the order of `storages`, then the bytes of each row's text. */
  sql: string;
  /** The same columns of rows `from` to `to` only: what the worker reads when it cannot copy the window (out of memory). */
  rowsSql: string;
  /**
   * The window as one row of lists (windowColumnsSql), rows `first` to `first + rows` of its part,
   * when its columns can be held as JavaScript arrays: the worker reads it so, and copies a table
   * with `sql` only when that fails.
   */
  columns?: { sql: string; first: number; rows: number } | undefined;
  storages: StorageKind[];
  from: number;
  to: number;
}

/** The text a window held as arrays may carry; past it its statement answers the text as NULL and the worker copies a table. */
export const COLUMN_WINDOW_TEXT_BYTES = 16 * 1024 * 1024;

/**
 * Rows of several windows at once (RowWindows.rowsOfMany): the pages that waited while their
 * worker was busy, answered together and each settled on its own.
 */
export interface WindowsTask {
  type: 'read-windows';
  windows: WindowTask[];
}

/** One answer of several: its value, or the error that task alone met. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: ErrorData };

/**
 * Writes a download file: `copy` runs `sql` (a DuckDB COPY statement) as is;
 * `lines` writes the single text column of each row of `sql` as one line.
 * `verify` lists stored parts whose SHA-256 must match before anything is written.
 */
export interface WriteFileTask {
  type: 'write-file';
  mode: 'copy' | 'lines';
  sql: string;
  params: (string | number | boolean | null)[];
  file: string;
  verify: { path: string; sha256: string }[];
}

export interface ReadResult {
  /**
   * Each row's JSON text, as JSON.stringify writes the row's values: text
   * crosses to the API thread as one string a row, which a page answers and
   * caches as it is (ReadPage.rowsJson).
   */
  rowsJson: string[];
}

/** Drops kept windows (row-windows.ts): their part's check failed after they were read, so they may hold other bytes than its. */
export interface ForgetWindowsTask {
  type: 'forget-windows';
  keys: string[];
}

/**
 * A window's rows; whether the worker read the window from its part for them, and whether it keeps
 * it (false: too wide to keep, or DuckDB could not copy it and the rows were read on their own).
 */
export interface WindowResult {
  /** Each row's JSON text (ReadPage.rowsJson): made here, off the API thread, which only joins them. */
  rowsJson: string[];
  read: boolean;
  kept: boolean;
}

export interface WriteFileResult {
  bytes: number;
}

/** Every task a query worker takes, with the result it answers: `run()` derives its type from this. */
export interface TaskMap {
  export: { task: ExportTask; result: ExportResult };
  read: { task: ReadTask; result: ReadResult };
  'read-window': { task: WindowTask; result: WindowResult };
  'read-windows': { task: WindowsTask; result: Settled<WindowResult>[] };
  'forget-windows': { task: ForgetWindowsTask; result: null };
  'write-file': { task: WriteFileTask; result: WriteFileResult };
}

export type Task = TaskMap[keyof TaskMap]['task'];
export type ResultOf<T extends Task> = TaskMap[T['type']]['result'];

export type ToWorker = (Task & { taskId: number }) | { type: 'cancel'; taskId: number };

export type TaskEvent =
  | { type: 'preview'; preview: PreviewData }
  | { type: 'progress'; rows: number; bytes: number }
  | { type: 'part'; part: ParquetPart; hashedAt: FileStamp };

export type FromWorker =
  /** Sent once the worker's modules (DuckDB's native addon among them) have loaded. */
  | { type: 'ready' }
  /** A line for the operator's log (the worker has no logger of its own); `cause` is an error's stack. */
  | { type: 'log'; line: string; cause?: string }
  | (TaskEvent & { taskId: number })
  | { type: 'done'; taskId: number; result: TaskMap[keyof TaskMap]['result'] }
  | { type: 'failed'; taskId: number; error: ErrorData };

export interface QueryWorkerData {
  duckdbThreads: number;
  duckdbMemoryLimit: string;
  /** This process's folder of spills: the worker's DuckDB instances spill past their memory limit into directories of their own there (spill-directory.ts). */
  spillDir: string;
  /** Bound on the memory of the row windows the worker keeps (row-windows.ts, window-bound.ts); WINDOW_BYTES when absent. */
  windowBytes?: number;
}
