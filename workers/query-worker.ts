/**
 * Entry of a query worker thread: runs exports (a datasource → Parquet) and
 * reads (DuckDB over stored Parquet) one at a time, off the API's event loop.
 * Holds one DuckDB instance, and the export driver of each datasource kind it
 * has been asked to read (its sessions with the datasources): the driver
 * hands over the rows, streamToParts turns them into parts.
 */
import { mkdirSync } from 'node:fs';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { toErrorData, toSluiceError } from '../src/errors.ts';
import { ExportDrivers } from '../src/datasources/export-drivers.ts';
import { streamToParts } from '../src/worker/export/stream-to-parts.ts';
import type { ExportHooks, ExportResult } from '../src/worker/export-types.ts';
import { RowWindows } from '../src/worker/row-windows.ts';
import { WINDOW_BYTES } from '../src/worker/window-bound.ts';
import { instanceSpillDir } from '../src/worker/spill-directory.ts';
import { TaskAnswers } from '../src/worker/task-answers.ts';
import { writeFile } from '../src/worker/write-file.ts';
import type { ExportTask, FromWorker, QueryWorkerData, ToWorker } from '../src/worker/protocol.ts';

const settings = workerData as QueryWorkerData;
const port = parentPort!;
const drivers = new ExportDrivers();
const stoppers = new Map<number, (reason: 'cancel') => void>();
/** Cancels that arrived before the export could be stopped (while it was still connecting). */
const cancelledEarly = new Set<number>();
let duckdb: Promise<DuckDBConnection> | null = null;
/** A second connection of the same DuckDB, where an export's parts are written while its rows still arrive. */
let copier: DuckDBConnection | null = null;
/** The single-threaded DuckDB of small reads, opened on the first one (ReadTask.small). */
let smallDuckdb: Promise<DuckDBConnection> | null = null;

/** Row groups read whole for the plain pages sent here, kept decoded (row-windows.ts). */
const windows = new RowWindows(settings.windowBytes ?? WINDOW_BYTES);

const PROGRESS_EVERY_MS = 200;

function send(message: FromWorker): void {
  port.postMessage(message);
}

/** The operator's log lives on the API thread: lines and causes go there as messages. */
function log(line: string, cause?: unknown): void {
  const text = cause instanceof Error ? (cause.stack ?? cause.message) : cause === undefined ? undefined : String(cause);
  send(text === undefined ? { type: 'log', line } : { type: 'log', line, cause: text });
}

/** `name` tells the worker's instances apart: each spills into a directory of its own. */
function openDuck(name: string, threads: number, memoryLimit: string): Promise<DuckDBInstance> {
  // DuckDB makes its own directory when it first spills, but not the folders above it.
  mkdirSync(settings.spillDir, { recursive: true });
  const tempDirectory = instanceSpillDir(settings.spillDir, threadId, name);
  return DuckDBInstance.create(':memory:', { threads: String(threads), memory_limit: memoryLimit, temp_directory: tempDirectory });
}

async function utcConnection(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  return connection;
}

function duck(): Promise<DuckDBConnection> {
  duckdb ??= (async () => {
    const instance = await openDuck('main', settings.duckdbThreads, settings.duckdbMemoryLimit);
    const connection = await utcConnection(instance);
    copier = await utcConnection(instance);
    return connection;
  })();
  return duckdb;
}

/**
 * A plain page decodes one row group or two: on a second DuckDB with one
 * thread it costs about 1.4× less CPU and time than on the worker's
 * parallel one (bench/runs/2026-12-01-pages.md, attempt 4). It has the
 * worker's memory limit all the same: a row group of wide values needs it
 * to decode, and a limit is a bound, not an allocation.
 */
function smallDuck(): Promise<DuckDBConnection> {
  if (settings.duckdbThreads <= 1) return duck();
  smallDuckdb ??= openDuck('small', 1, settings.duckdbMemoryLimit).then(utcConnection);
  return smallDuckdb;
}

const answers = new TaskAnswers(send);

function answer(message: Parameters<TaskAnswers['answer']>[0]): void {
  answers.answer(message);
}

/** One export: the driver of the datasource's kind reads, the core writes the parts. */
async function runExportTask(task: ExportTask, hooks: ExportHooks): Promise<ExportResult> {
  const driver = await drivers.for(task.datasource.kind);
  const duckdb = await duck();
  mkdirSync(task.request.stagingDir, { recursive: true });
  try {
    return await driver.export(task.datasource.url, task.request, (columns, source) => streamToParts(source, duckdb, task.request, columns, hooks, copier ?? duckdb));
  } catch (error) {
    throw driver.mapError(error) ?? error;
  }
}

async function handle(message: Exclude<ToWorker, { type: 'cancel' }>): Promise<void> {
  const { taskId } = message;
  answers.begin(taskId);
  try {
    if (message.type === 'export') {
      let lastProgress = 0;
      const result = await runExportTask(message, {
        onPreview: (preview) => answer({ type: 'preview', taskId, preview }),
        onProgress: (rows, bytes) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = now;
          answer({ type: 'progress', taskId, rows, bytes });
        },
        onPart: (part, hashedAt) => answer({ type: 'part', taskId, part, hashedAt }),
        onStopper: (stop) => {
          stoppers.set(taskId, stop);
          if (cancelledEarly.has(taskId)) stop('cancel');
        },
      });
      answer({ type: 'done', taskId, result });
    } else if (message.type === 'forget-windows') {
      await windows.forget(await smallDuck(), message.keys);
      answer({ type: 'done', taskId, result: null });
    } else if (message.type === 'read-window') {
      answer({ type: 'done', taskId, result: await windows.rows(await smallDuck(), message) });
    } else if (message.type === 'read-windows') {
      answer({ type: 'done', taskId, result: await windows.rowsOfMany(await smallDuck(), message.windows, log) });
    } else if (message.type === 'write-file') {
      answer({ type: 'done', taskId, result: await writeFile(await duck(), message) });
    } else {
      const reader = await (await (message.small === true ? smallDuck() : duck())).runAndReadAll(message.sql, message.params);
      // Written again by JSON.stringify: its text of a value is what the API has always answered (DuckDB's may differ in form).
      const rowsJson = reader.getRowsJS().map((r) => JSON.stringify(JSON.parse(String(r[0]))));
      answer({ type: 'done', taskId, result: { rowsJson } });
    }
  } catch (error) {
    const failure = toSluiceError(error);
    // The caller gets a plain INTERNAL; the operator gets the cause, in the log only.
    if (failure.code === 'INTERNAL') log(`query worker: task ${taskId} failed:`, failure.cause ?? error);
    const data = toErrorData(failure);
    answer({ type: 'failed', taskId, error: data });
  } finally {
    stoppers.delete(taskId);
    cancelledEarly.delete(taskId);
  }
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'cancel') {
    const stop = stoppers.get(message.taskId);
    if (stop) stop('cancel');
    else cancelledEarly.add(message.taskId);
    return;
  }
  void handle(message);
});

// Terminating a thread while it still loads DuckDB's native addon aborts the whole process,
// so the pool waits for this before it ever terminates a worker. DuckDB is opened first, so
// the first task does not pay for it.
void duck().then(
  () => send({ type: 'ready' }),
  (error: unknown) => {
    log('query worker: DuckDB did not start:', error);
    setImmediate(() => process.exit(1));
  },
);
