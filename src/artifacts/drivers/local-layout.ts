/**
 * Where the local store keeps things under the data dir, and the handle the
 * driver's parts share: the catalog, its statements, the clock, the quotas
 * and the workers that run DuckDB.
 */
import { join } from 'node:path';
import type { Logger } from '../../logger.ts';
import type { SqliteDatabase } from '../../runtime/sqlite.ts';
import type { WriteFileTask } from '../../query/worker-protocol.ts';
import type { BoundValue } from '../filter-values.ts';
import type { ArtifactRows } from './artifact-rows.ts';

export interface StoreWorkers {
  read(sql: string, params: BoundValue[]): Promise<unknown[][]>;
  writeFile(task: Omit<WriteFileTask, 'type'>): Promise<void>;
}

export interface LocalContext {
  root: string;
  stagingRoot: string;
  objectsRoot: string;
  downloadsRoot: string;
  trashRoot: string;
  db: SqliteDatabase;
  rows: ArtifactRows;
  workers: StoreWorkers;
  log: Logger;
  now: () => Date;
  principalQuotaBytes: number;
  workspaceQuotaBytes: number;
  /** Called between the steps whose order makes the store crash-safe; tests stop the process there. */
  checkpoint: (step: CrashPoint) => void;
}

export type CrashPoint = 'commit:after-rename' | 'collect:after-rename';

export function layout(dataDir: string) {
  const root = join(dataDir, 'artifacts');
  return {
    root,
    stagingRoot: join(root, 'staging'),
    objectsRoot: join(root, 'objects'),
    downloadsRoot: join(root, 'downloads'),
    trashRoot: join(root, 'trash'),
    catalogFile: join(root, 'catalog.sqlite'),
  };
}

export function objectDir(ctx: LocalContext, location: string): string {
  return join(ctx.objectsRoot, location);
}
