/**
 * Starts and stops the embedded PostgreSQL (PGlite behind pglite-socket) that
 * backs the `default` datasource when no DATABASE_URL is given. Owns the
 * worker thread's lifecycle: spawning it, relaying its seeding progress,
 * turning its first message into a connection URL or a SluiceError, and making
 * sure that after stop() no thread is left holding the process open.
 */
import { resolve } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { fromErrorData, SluiceError, toSluiceError } from '../../../errors.ts';
import { spawnWorker } from '../../../runtime/spawn-worker.ts';
import { isWorkerToParent, type EmbeddedWorkerData, type ParentToWorker } from './protocol.ts';

const WORKER_ENTRY = new URL('../../../../workers/embedded-postgres.ts', import.meta.url);

/** Closing PGlite takes well under a second; a query still running does not yield. */
const STOP_TIMEOUT_MS = 10_000;

export interface EmbeddedPostgres {
  url: string;
  port: number;
  /** True when this start created the sample data. */
  seeded: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  log: (line: string) => void;
  host?: string;
  port?: number;
}

function spawn(workerData: EmbeddedWorkerData): Worker {
  return spawnWorker(WORKER_ENTRY, { workerData });
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const host = opts.host ?? '127.0.0.1';
  const worker = spawn({ dataDir: resolve(opts.dataDir), host, port: opts.port ?? 0 });
  let exited = false;
  let stopping: Promise<void> | undefined;

  const exit = new Promise<number>((done) => {
    worker.once('exit', (code) => {
      exited = true;
      done(code);
    });
  });

  function stop(): Promise<void> {
    stopping ??= (async () => {
      if (exited) return;
      const timer = setTimeout(() => {
        opts.log(`Embedded PostgreSQL did not stop within ${STOP_TIMEOUT_MS / 1000} s; terminating it.`);
        void worker.terminate();
      }, STOP_TIMEOUT_MS);
      worker.postMessage({ type: 'stop' } satisfies ParentToWorker);
      await exit;
      clearTimeout(timer);
    })();
    return stopping;
  }

  return new Promise<EmbeddedPostgres>((resolveStart, rejectStart) => {
    let ready = false;
    let failure: SluiceError | undefined;

    worker.on('message', (message: unknown) => {
      if (!isWorkerToParent(message)) return;
      if (message.type === 'log') {
        opts.log(message.line);
      } else if (message.type === 'ready') {
        ready = true;
        const url = `postgres://postgres@${urlHost(host)}:${message.port}/postgres`;
        resolveStart({ url, port: message.port, seeded: message.seeded, stop });
      } else if (message.type === 'failed' && !ready) {
        // The worker has logged the cause. Before ready it closes PGlite and
        // exits by itself, and the exit handler rejects; the timer only
        // covers a worker that hangs.
        failure ??= fromErrorData(message.error);
        setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS).unref();
      }
    });
    worker.on('error', (error) => {
      opts.log(`Embedded PostgreSQL crashed: ${error.message}`);
      failure ??= toSluiceError(error, 'Embedded PostgreSQL failed to start: its thread crashed.');
    });
    void exit.then((code) => {
      if (!ready) {
        rejectStart(failure ?? new SluiceError('INTERNAL', `Embedded PostgreSQL failed to start: its thread exited with code ${code}.`));
      } else if (stopping === undefined) {
        opts.log(`Embedded PostgreSQL stopped unexpectedly (exit code ${code}).`);
      }
    });
  });
}
