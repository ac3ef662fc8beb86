/**
 * The messages between the API thread and the embedded Postgres worker, and
 * the data the worker starts with. Both sides import this module, so a change
 * to a message is a type error on both ends rather than a silent mismatch.
 * The conventions are the query workers' (src/worker/protocol.ts):
 * `ready` once it can serve, `log` lines for the operator, failures as
 * ErrorData, never as thrown objects.
 */
import type { ErrorData } from '../../../errors.ts';

export interface EmbeddedWorkerData {
  /** Directory PGlite keeps its files in; created when missing. */
  dataDir: string;
  host: string;
  /** 0 lets the operating system pick a free port. */
  port: number;
}

export type WorkerToParent =
  | { type: 'log'; line: string }
  | { type: 'ready'; port: number; seeded: boolean }
  | { type: 'failed'; error: ErrorData }
  | { type: 'stopped' };

export type ParentToWorker = { type: 'stop' };

export function isWorkerToParent(value: unknown): value is WorkerToParent {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'log' || type === 'ready' || type === 'failed' || type === 'stopped';
}

export function isParentToWorker(value: unknown): value is ParentToWorker {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'stop';
}
