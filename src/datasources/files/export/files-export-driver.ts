/**
 * The files datasources' export half, one per query worker: a DuckDB over
 * each datasource's folder (folder-engine.ts, the same locked engine the
 * API thread uses), opened on first use and kept while the worker lives,
 * since opening one means reading every file's header again. Each export
 * has a connection to itself while it runs (the engine lends it,
 * folder-engine.ts); a cancel interrupts that connection's statement.
 */
import type { ExportDriver } from '../../driver.ts';
import { duckdbError } from '../duckdb-errors.ts';
import { FolderEngine } from '../folder-engine.ts';
import { folderOf } from '../folder-url.ts';
import { runExport } from './export-run.ts';

/**
 * The worker's engines read on while the export consumes: a second thread, and a streaming buffer on the connection
 * exports are lent. DuckDB keeps the result's order, so a thread that reads a later row group waits until the buffer
 * has room for it: with 4 MB the second thread mostly waited. Measured on 1M rows × 6 columns of Parquet
 * (bench/runs/2026-12-02-folder-buffer.md): the export took about a tenth less time with 4 MB than on one thread, and
 * a tenth less again with 8 MB; 16 MB gained nothing more and held more memory.
 */
const EXPORT_ENGINE = { threads: 2, streamingBuffer: '8MB' };

export interface FilesExportDriver extends ExportDriver {
  /** The statements whose rows the engine is producing now, for operators and tests. */
  running(): string[];
}

export function createFilesExportDriver(): FilesExportDriver {
  const engines = new Map<string, FolderEngine>();
  const running = new Map<number, string>();
  let next = 0;

  function engineOf(url: string): FolderEngine {
    let engine = engines.get(url);
    if (engine === undefined) {
      // The API thread logs what the scan skipped; the worker would only repeat it.
      engine = new FolderEngine(folderOf(url), () => undefined, EXPORT_ENGINE);
      engines.set(url, engine);
    }
    return engine;
  }

  const started = (sql: string) => {
    const id = next++;
    running.set(id, sql);
    return () => void running.delete(id);
  };

  return {
    async export(url, request, consume) {
      const engine = engineOf(url);
      try {
        return await runExport(engine, request, consume, { started });
      } catch (error) {
        throw duckdbError(error, engine.folder) ?? error;
      }
    },
    mapError: (error) => duckdbError(error),
    running: () => [...running.values()],
    async close() {
      const open = [...engines.values()];
      engines.clear();
      await Promise.all(open.map((engine) => engine.close()));
    },
  };
}
