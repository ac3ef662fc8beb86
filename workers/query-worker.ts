/**
 * Entry of a query worker thread: runs exports (PostgreSQL → Parquet) and
 * reads (DuckDB over stored Parquet) one at a time, off the API's event loop.
 * Holds one DuckDB instance and one PostgreSQL connection per datasource.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import postgres, { type Sql } from 'postgres';
import { toErrorData, toSluiceError } from '../src/errors.ts';
import { runExport } from '../src/worker/export/export-run.ts';
import { writeFile } from '../src/worker/write-file.ts';
import type { FromWorker, QueryWorkerData, ToWorker } from '../src/query/worker-protocol.ts';

const settings = workerData as QueryWorkerData;
const port = parentPort!;
const connections = new Map<string, Sql>();
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

function database(url: string): Sql {
  let sql = connections.get(url);
  if (sql === undefined) {
    sql = postgres(url, {
      max: 1,
      fetch_types: false,
      idle_timeout: 60,
      connect_timeout: 10,
      onnotice: () => undefined,
      connection: { application_name: 'sluice' },
    });
    connections.set(url, sql);
  }
  return sql;
}

/** Exports in flight: the datasource each uses, so a lost connection fails the right task. */
const exporting = new Map<number, string>();
/** Tasks already answered; a late settle of the same task is ignored. */
const answered = new Set<number>();

function answer(message: FromWorker & { taskId: number }): void {
  if (answered.has(message.taskId)) return;
  if (message.type === 'done' || message.type === 'failed') answered.add(message.taskId);
  send(message);
}

/**
 * postgres.js 3.4.9 throws from its own socket callbacks when the connection
 * dies inside a transaction (it writes the ROLLBACK to a closed socket). That
 * error reaches no caller, so it is caught here: the exports on that
 * connection fail with a retryable SQL_ERROR, the connection is dropped so
 * the next task opens a fresh one, and the worker lives on. Any other
 * uncaught error ends the worker, and the pool fails its task and replaces it.
 */
process.on('uncaughtException', (error) => {
  const fromPostgres = /postgres[\\/](cjs[\\/])?src[\\/]connection\.js/.test(error.stack ?? '');
  if (!fromPostgres) {
    log('query worker: uncaught error:', error);
    // Let the log line reach the API thread before the thread ends.
    setImmediate(() => process.exit(1));
    return;
  }
  // The broken connection may belong to an export that has already failed: drop them all.
  for (const [url, sql] of connections) {
    sql.end({ timeout: 0 }).catch(() => undefined);
    connections.delete(url);
  }
  for (const taskId of exporting.keys()) {
    answer({ type: 'failed', taskId, error: { code: 'SQL_ERROR', message: 'The connection to the database was lost during the query; it can be retried.', details: { retryable: true } } });
  }
  exporting.clear();
});

async function handle(message: Exclude<ToWorker, { type: 'cancel' }>): Promise<void> {
  const { taskId } = message;
  if (message.type === 'export') exporting.set(taskId, message.datasourceUrl);
  try {
    if (message.type === 'export') {
      let lastProgress = 0;
      const result = await runExport(database(message.datasourceUrl), await duck(), message.request, {
        onPreview: (preview) => answer({ type: 'preview', taskId, preview }),
        onProgress: (rows, bytes) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = now;
          answer({ type: 'progress', taskId, rows, bytes });
        },
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
    exporting.delete(taskId);
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
