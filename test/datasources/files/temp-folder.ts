/**
 * A folder of data files for a test, in a temporary directory, written by
 * an unrestricted DuckDB (as a person would export them), with the files
 * driver's two halves opened on it as the server opens them.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral } from '../../../src/columns/column-plan.ts';
import type { DatasourceDriver } from '../../../src/datasources/driver.ts';
import { openFilesDriver } from '../../../src/datasources/files/files-driver.ts';
import { createFilesExportDriver, type FilesExportDriver } from '../../../src/datasources/files/export/files-export-driver.ts';
import { FolderEngine } from '../../../src/datasources/files/folder-engine.ts';
import type { Logger } from '../../../src/logger.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';

export class TempFolder {
  /** The parent of the datasource's folder, where files "outside" it live. */
  readonly root = mkdtempSync(join(tmpdir(), 'sluice-files-'));
  readonly dir = join(this.root, 'data');
  readonly url = pathToFileURL(this.dir).href;
  readonly logged: string[] = [];
  #instance: DuckDBInstance | null = null;
  #writer: DuckDBConnection | null = null;
  #opened: { driver: DatasourceDriver; exports: FilesExportDriver }[] = [];

  constructor() {
    mkdirSync(this.dir);
  }

  path(relative: string): string {
    return join(this.dir, relative);
  }

  /** Writes `select`'s rows to `relative` in the folder (Parquet, CSV or JSON by its extension), making subfolders. */
  async write(relative: string, select: string): Promise<void> {
    const target = join(this.dir, relative);
    mkdirSync(join(target, '..'), { recursive: true });
    const format = relative.endsWith('.parquet') ? 'parquet' : relative.endsWith('.csv') ? 'csv' : 'json';
    await (await this.#connection()).run(`COPY (${select}) TO ${quoteLiteral(target)} (FORMAT ${format})`);
  }

  /** The driver's two halves on this folder, closed with it. */
  open(): DriverUnderTest & { exports: FilesExportDriver } {
    const log: Logger = { info: (line) => this.logged.push(line), error: (line) => this.logged.push(line) };
    const driver = openFilesDriver({ id: 'files', url: this.url }, log);
    const exports = createFilesExportDriver();
    this.#opened.push({ driver, exports });
    return {
      driver,
      exports,
      url: this.url,
      admin: async (sql) => (await (await this.#connection()).runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[],
      engineError: async (sql) => {
        // What DuckDB's client throws on a locked engine over this folder, as the export half meets it.
        const engine = new FolderEngine(this.dir, () => undefined);
        const connection = await engine.connect();
        try {
          return await connection.run(sql).then(() => new Error(`the engine ran ${sql} without an error`), (error: unknown) => error);
        } finally {
          connection.closeSync();
          await engine.close();
        }
      },
      close: async () => undefined,
    };
  }

  async close(): Promise<void> {
    for (const { driver, exports } of this.#opened) await Promise.all([driver.close(), exports.close()]);
    this.#writer?.closeSync();
    this.#instance?.closeSync();
    rmSync(this.root, { recursive: true, force: true });
  }

  async #connection(): Promise<DuckDBConnection> {
    this.#instance ??= await DuckDBInstance.create(':memory:');
    this.#writer ??= await this.#instance.connect();
    return this.#writer;
  }
}
