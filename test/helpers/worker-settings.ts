/**
 * A query worker's settings for tests that start a pool of their own: one
 * spill folder under the system's temporary directory for all of them
 * (each DuckDB instance spills into a directory of its own there).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueryWorkerData } from '../../src/worker/protocol.ts';

export function workerSettings(settings: Omit<QueryWorkerData, 'spillDir'>): QueryWorkerData {
  return { ...settings, spillDir: join(tmpdir(), 'sluice-test-spill') };
}
