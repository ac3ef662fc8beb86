/**
 * Entry of a query worker thread: runs exports (PostgreSQL → Parquet) and
 * reads (DuckDB over stored Parquet) one at a time, off the API's event loop.
 * Holds one DuckDB instance and one PostgreSQL connection per datasource.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import postgres, { type Sql } from 'postgres';
import { toErrorData } from '../src/errors.ts';
import { runExport } from '../src/export/export-run.ts';
import { writeFile } from '../src/export/write-file.ts';
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

async function handle(message: Exclude<ToWorker, { type: 'cancel' }>): Promise<void> {
  const { taskId } = message;
  try {
    if (message.type === 'export') {
      let lastProgress = 0;
      const result = await runExport(database(message.datasourceUrl), await duck(), message.request, {
        onPreview: (preview) => send({ type: 'preview', taskId, preview }),
        onProgress: (rows, bytes) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = now;
          send({ type: 'progress', taskId, rows, bytes });
        },
        onStopper: (stop) => {
          stoppers.set(taskId, stop);
          if (cancelledEarly.has(taskId)) stop('cancel');
        },
      });
      send({ type: 'done', taskId, result });
    } else if (message.type === 'write-file') {
      send({ type: 'done', taskId, result: await writeFile(await duck(), message) });
    } else {
      const reader = await (await duck()).runAndReadAll(message.sql, message.params);
      const rows = reader.getRowsJS().map((r) => JSON.parse(String(r[0])) as unknown[]);
      send({ type: 'done', taskId, result: { rows } });
    }
  } catch (error) {
    const data = toErrorData(error);
    // The caller gets a plain INTERNAL; the operator gets the cause, on this process's stderr only.
    if (data.code === 'INTERNAL') console.error(`query worker: task ${taskId} failed:`, error);
    send({ type: 'failed', taskId, error: data });
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
// so the pool waits for this before it ever terminates a worker.
send({ type: 'ready' });
