/**
 * The messages between the API thread and a query worker, shared by both
 * sides. Plain data only: errors travel as ErrorData, never as thrown objects.
 */
import type { ErrorData } from '../errors.ts';
import type { ExportRequest, ExportResult, PreviewData } from '../export/export-types.ts';

export interface ExportTask {
  type: 'export';
  datasourceUrl: string;
  request: ExportRequest;
}

/** A DuckDB statement over stored Parquet whose single column is one JSON text per row. */
export interface ReadTask {
  type: 'read';
  sql: string;
  params: (string | number | boolean | null)[];
}

export type Task = ExportTask | ReadTask;

export type ToWorker = (Task & { taskId: number }) | { type: 'cancel'; taskId: number };

export type TaskEvent =
  | { type: 'preview'; preview: PreviewData }
  | { type: 'progress'; rows: number; bytes: number };

export type FromWorker =
  | (TaskEvent & { taskId: number })
  | { type: 'done'; taskId: number; result: ExportResult | ReadResult }
  | { type: 'failed'; taskId: number; error: ErrorData };

export interface ReadResult {
  rows: unknown[][];
}

export interface QueryWorkerData {
  duckdbThreads: number;
  duckdbMemoryLimit: string;
}
