/**
 * A single-threaded DuckDB (as a read worker's plain pages run) and a
 * scratch folder for the Parquet parts a test writes and reads back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

export interface DuckScratch {
  duck: DuckDBConnection;
  /** A path in the scratch folder. */
  path: (name: string) => string;
  close: () => void;
}

export async function openDuckScratch(prefix: string): Promise<DuckScratch> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
  return {
    duck,
    path: (name) => join(dir, name),
    close: () => {
      duck.closeSync();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
