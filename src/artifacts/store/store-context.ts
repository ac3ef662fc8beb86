/**
 * What the parts of the store share: the catalog, the byte store, the read
 * workers, the local directories of this process (export scratch space and
 * download files), the clock, the logger, and the replica's name (it holds
 * the collection lease).
 */
import type { Logger } from '../../logger.ts';
import type { WindowResult, WindowTask, WriteFileTask } from '../../worker/protocol.ts';
import type { ByteStore } from '../bytes/byte-store.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { BoundValue } from '../filter-values.ts';

/** Windows of rows the read workers keep (window-reads.ts), each on the worker `affinity` picks. */
export interface WindowWorkers {
  /** Rows of a window (protocol.ts, WindowTask). */
  read(task: Omit<WindowTask, 'type'>, affinity: number): Promise<WindowResult>;
  /** Drops a kept window whose part failed its check. */
  forget(keys: string[], affinity: number): Promise<void>;
}

/** DuckDB, on the read workers: statements over local Parquet files. */
export interface StoreWorkers {
  /** Each row's JSON text (protocol.ts, ReadResult). `small`: a plain page, a few rows of a row group or two (ReadTask). */
  read(sql: string, params: BoundValue[], options?: { small?: boolean }): Promise<string[]>;
  /** Plain pages from windows kept decoded (window-reads.ts); without them, every page is a statement. */
  windows?: WindowWorkers;
  writeFile(task: Omit<WriteFileTask, 'type'>): Promise<void>;
}

export interface StoreContext {
  catalog: Catalog;
  bytes: ByteStore;
  workers: StoreWorkers;
  /** Scratch directories of exports in flight, under the data dir. */
  stagingRoot: string;
  /** Download files being written or streamed, under the data dir. */
  downloadsRoot: string;
  now: () => Date;
  log: Logger;
  /** This process's name among replicas. */
  replica: string;
  /** Called between the steps whose order makes the store crash-safe; tests stop the process there. */
  checkpoint: (step: CrashPoint) => void;
}

export type CrashPoint = 'commit:after-upload' | 'collect:after-delete';
