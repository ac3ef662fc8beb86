/**
 * Real staged results for store tests: the export pipeline itself runs a
 * query against the test PostgreSQL into a store's staging directory, and a
 * worker pool serves the store's DuckDB reads, as in the server.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { connect } from '../../src/datasources/postgres/export/pg-connect.ts';
import { mkdirSync } from 'node:fs';
import { runExport } from '../../src/datasources/postgres/export/export-run.ts';
import { streamToParts } from '../../src/worker/export/stream-to-parts.ts';
import type { ArtifactStore, StagedResult, Staging } from '../../src/artifacts/types.ts';
import type { StoreWorkers } from '../../src/artifacts/store/store-context.ts';
import { WorkerPool } from '../../src/worker/worker-pool.ts';
import { poolLanes, WindowBatches } from '../../src/worker/window-batches.ts';
import { workerSettings } from '../helpers/worker-settings.ts';


export interface Fixtures {
  workers: StoreWorkers;
  /** The export of `sql` staged in a fresh staging of `store`, ready to commit. */
  stage(store: ArtifactStore, sql: string): Promise<StagedResult & { staging: Staging }>;
  close(): Promise<void>;
}

export async function createFixtures(): Promise<Fixtures> {
  const pool = new WorkerPool(new URL('../../workers/query-worker.ts', import.meta.url), 1, workerSettings({ duckdbThreads: 1, duckdbMemoryLimit: '256MB' }));
  const database = await testDatabase();
  // The export's own connection, as a query worker opens it.
  const client = await connect(database.url, () => undefined);
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const duck: DuckDBConnection = await instance.connect();
  return {
    workers: {
      read: async (text, params, options) => (await pool.run({ type: 'read', sql: text, params, small: options?.small === true }).result).rowsJson,
      windows: new WindowBatches(poolLanes(pool), pool.capacity),
      writeFile: async (task) => void (await pool.run({ type: 'write-file', ...task }).result),
    },
    async stage(store, text) {
      const staging = await store.begin();
      const stagingDir = staging.scratchDir;
      const request = { sql: text, kind: 'select' as const, params: [], previewRows: 0, previewBytes: 1 << 20, previewCellChars: 10_000, materialize: 'always' as const, limits: { maxRows: 10_000_000, maxBytes: 1e12, maxDurationMs: 60_000 }, stagingDir };
      const hooks = { onPreview: () => undefined, onProgress: () => undefined, onPart: () => undefined, onStopper: () => undefined };
      mkdirSync(stagingDir, { recursive: true });
      const result = await runExport(client, request, (columns, source) => streamToParts(source, duck, request, columns, hooks));
      return { staging, parts: result.parts!, columns: result.columns, rowCount: result.rows, coverage: 'COMPLETE', boundedBy: null, sql: text, datasource: 'default' };
    },
    async close() {
      await client.end();
      await database.stop();
      duck.closeSync();
      instance.closeSync();
      await pool.close();
    },
  };
}

/** The suite's database: TEST_DATABASE_URL (test/global-setup.ts sets it to the embedded one when unset). */
async function testDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined) throw new Error('TEST_DATABASE_URL is not set (test/global-setup.ts sets it).');
  return { url, stop: async () => undefined };
}
