/**
 * A query worker's settings for tests that start a pool of their own: a
 * spill folder of this test process's under the system's temporary
 * directory (each DuckDB instance spills into a directory of its own there).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueryWorkerData } from '../../src/worker/protocol.ts';

export function workerSettings(settings: Omit<QueryWorkerData, 'spillDir'>): QueryWorkerData {
  return { ...settings, spillDir: join(tmpdir(), 'sluice-test-spill', String(process.pid)) };
}
