/**
 * The embedded Postgres thread: owns the PGlite instance, seeds it on first
 * start, serves it over TCP with pglite-socket, and shuts both down when the
 * parent asks. PGlite runs queries synchronously on the calling thread, which
 * is why it lives here and not on the API's event loop. Loaded through tsx's
 * CommonJS hook (see start-embedded.ts), so no top-level await or import.meta.
 */
import { mkdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import {
  isParentToWorker,
  type EmbeddedWorkerData,
  type WorkerToParent,
} from './protocol.ts';
import { toErrorData, toSluiceError } from '../../../errors.ts';
import { seedIfNeeded } from './embedded-seed.ts';

// PGlite serialises everything onto one backend anyway; the multiplexer only
// lets several clients hold a connection open while their messages queue.
const MAX_CONNECTIONS = 16;

// wal_level=minimal lets the seed transaction, which creates its own tables,
// skip WAL for the bulk rows: ~290 MB less WAL on disk and a faster seed.
const START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c', 'wal_level=minimal',
  '-c', 'max_wal_senders=0',
  '-c', 'min_wal_size=32MB',
];

const port = parentPort;
if (port === null) throw new Error('embedded-postgres must run as a worker thread.');

function post(message: WorkerToParent): void {
  port?.postMessage(message);
}

/**
 * Tells the parent of a failure: the operator gets the cause as a log line;
 * the failure itself crosses as ErrorData, so its code and status survive
 * (a full disk stays a 507) and no stack or path does.
 */
function reportFailure(error: unknown, what: string): void {
  post({ type: 'log', line: `Embedded PostgreSQL ${what}: ${error instanceof Error ? error.message : String(error)}` });
  post({ type: 'failed', error: toErrorData(toSluiceError(error, `Embedded PostgreSQL ${what}.`)) });
}

let db: PGlite | undefined;
let server: PGLiteSocketServer | undefined;
let stopping: Promise<void> | undefined;
const abort = new AbortController();

async function start(config: EmbeddedWorkerData): Promise<void> {
  mkdirSync(config.dataDir, { recursive: true });
  db = await PGlite.create({ dataDir: config.dataDir, startParams: START_PARAMS });
  const seeded = await seedIfNeeded(db, (line) => post({ type: 'log', line }), abort.signal);
  const socketServer = new PGLiteSocketServer({
    db,
    host: config.host,
    port: config.port,
    maxConnections: MAX_CONNECTIONS,
  });
  let boundPort = config.port;
  socketServer.addEventListener('listening', (event) => {
    const detail = (event as CustomEvent<{ port?: number }>).detail;
    if (typeof detail.port === 'number') boundPort = detail.port;
  });
  server = socketServer;
  await socketServer.start();
  if (abort.signal.aborted) return;
  post({ type: 'ready', port: boundPort, seeded });
}

async function shutdown(): Promise<void> {
  abort.abort();
  await started.catch(() => undefined);
  await server?.stop();
  // stop() detaches clients without awaiting the ROLLBACK each detach may
  // issue; let those run before the database goes away under them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  if (db !== undefined && !db.closed) {
    if (db.isInTransaction()) await db.exec('ROLLBACK').catch(() => undefined);
    await db.close();
  }
}

// pglite-socket detaches clients fire-and-forget, so a ROLLBACK racing
// close() can reject with nobody listening. One client's mishap must not take
// the database down, and during stop() such rejections are expected.
process.on('unhandledRejection', (reason) => {
  if (stopping === undefined) reportFailure(reason, 'failed');
});

const started = start(workerData as EmbeddedWorkerData);
started.catch(async (error: unknown) => {
  if (abort.signal.aborted) return;
  reportFailure(error, 'failed to start');
  await db?.close().catch(() => undefined);
  port.close();
});

port.on('message', (message: unknown) => {
  if (!isParentToWorker(message) || stopping !== undefined) return;
  stopping = shutdown()
    .then(() => post({ type: 'stopped' }))
    .catch((error: unknown) => reportFailure(error, 'failed to stop'))
    .finally(() => port.close());
});
