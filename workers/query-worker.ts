/**
 * Entry of a query worker thread: runs exports (PostgreSQL → Parquet) and
 * reads (DuckDB over stored Parquet) one at a time, off the API's event loop.
 * Holds one DuckDB instance and one PostgreSQL connection per datasource, on
 * node-postgres: it lets an export read a COPY as a byte stream through a
 * Submittable. The API thread's schema lookups (src/datasources/registry.ts)
 * stay on postgres.js: they are small catalog queries, never a COPY, and gain
 * nothing from a second driver there.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { toErrorData, toSluiceError } from '../src/errors.ts';
import { runExport } from '../src/worker/export/export-run.ts';
import { connect } from '../src/worker/export/pg-connect.ts';
import { writeFile } from '../src/worker/write-file.ts';
import type { FromWorker, QueryWorkerData, ToWorker } from '../src/query/worker-protocol.ts';

const settings = workerData as QueryWorkerData;
const port = parentPort!;
const connections = new Map<string, Connection>();
const stoppers = new Map<number, (reason: 'cancel') => void>();
/** Cancels that arrived before the export could be stopped (while it was still connecting). */
const cancelledEarly = new Set<number>();
let duckdb: Promise<DuckDBConnection> | null = null;

const PROGRESS_EVERY_MS = 200;

function send(message: FromWorker): void {
  port.postMessage(message);
}

/** The operator's log lives on the API thread: lines and causes go there as messages. */
function log(line: string, cause?: unknown): void {
  const text = cause instanceof Error ? (cause.stack ?? cause.message) : cause === undefined ? undefined : String(cause);
  send(text === undefined ? { type: 'log', line } : { type: 'log', line, cause: text });
}

function duck(): Promise<DuckDBConnection> {
  duckdb ??= (async () => {
    const instance = await DuckDBInstance.create(':memory:', {
      threads: String(settings.duckdbThreads),
      memory_limit: settings.duckdbMemoryLimit,
    });
    const connection = await instance.connect();
    await connection.run("SET TimeZone = 'UTC'");
    return connection;
  })();
  return duckdb;
}

/** A connection idle this long is closed, so an idle worker holds no session open on the server. */
const IDLE_CLOSE_MS = 60_000;

interface Connection {
  client: Promise<pg.Client>;
  idle: NodeJS.Timeout | null;
}

/**
 * The datasource's connection, opened on first use. node-postgres reports a
 * connection lost during a statement to that statement's caller (the export
 * fails with a retryable SQL_ERROR); the client is dropped here as well, so
 * the next task opens a fresh one and the worker lives on.
 */
function database(url: string): Promise<pg.Client> {
  let connection = connections.get(url);
  if (connection === undefined) {
    const opened: Connection = { client: connect(url, () => forget(url, opened)), idle: null };
    opened.client.catch(() => forget(url, opened));
    connections.set(url, opened);
    connection = opened;
  }
  if (connection.idle !== null) clearTimeout(connection.idle);
  connection.idle = null;
  return connection.client;
}

function forget(url: string, connection: Connection): void {
  if (connections.get(url) === connection) connections.delete(url);
  if (connection.idle !== null) clearTimeout(connection.idle);
}

/** Starts the idle clock of a datasource's connection once a task is done with it. */
function release(url: string): void {
  const connection = connections.get(url);
  if (connection === undefined) return;
  connection.idle = setTimeout(() => {
    connections.delete(url);
    void connection.client.then((client) => client.end()).catch(() => undefined);
  }, IDLE_CLOSE_MS);
  connection.idle.unref();
}

/** Tasks already answered; a late settle of the same task is ignored. */
const answered = new Set<number>();

function answer(message: FromWorker & { taskId: number }): void {
  if (answered.has(message.taskId)) return;
  if (message.type === 'done' || message.type === 'failed') answered.add(message.taskId);
  send(message);
}

async function handle(message: Exclude<ToWorker, { type: 'cancel' }>): Promise<void> {
  const { taskId } = message;
  try {
    if (message.type === 'export') {
      let lastProgress = 0;
      const result = await runExport(await database(message.datasourceUrl), await duck(), message.request, {
        onPreview: (preview) => answer({ type: 'preview', taskId, preview }),
        onProgress: (rows, bytes) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = now;
          answer({ type: 'progress', taskId, rows, bytes });
        },
        onPart: (part) => answer({ type: 'part', taskId, part }),
        onStopper: (stop) => {
          stoppers.set(taskId, stop);
          if (cancelledEarly.has(taskId)) stop('cancel');
        },
      });
      answer({ type: 'done', taskId, result });
    } else if (message.type === 'write-file') {
      answer({ type: 'done', taskId, result: await writeFile(await duck(), message) });
    } else {
      const reader = await (await duck()).runAndReadAll(message.sql, message.params);
      const rows = reader.getRowsJS().map((r) => JSON.parse(String(r[0])) as unknown[]);
      answer({ type: 'done', taskId, result: { rows } });
    }
  } catch (error) {
    const failure = toSluiceError(error);
    // The caller gets a plain INTERNAL; the operator gets the cause, in the log only.
    if (failure.code === 'INTERNAL') log(`query worker: task ${taskId} failed:`, failure.cause ?? error);
    const data = toErrorData(failure);
    answer({ type: 'failed', taskId, error: data });
  } finally {
    if (message.type === 'export') release(message.datasourceUrl);
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
