/**
 * The export half of every driver, by kind, for the query worker's entry:
 * each is created the first time an export of its kind arrives, so a worker
 * loads only the engines it is asked to read.
 */
import { SluiceError } from '../errors.ts';
import type { DatasourceKind, ExportDriver } from './driver.ts';
import { createFilesExportDriver } from './files/export/files-export-driver.ts';
import { createMysqlExportDriver } from './mysql/export/mysql-export-driver.ts';
import { createPgExportDriver } from './postgres/export/pg-export-driver.ts';
import { createSqliteExportDriver } from './sqlite/export/sqlite-export-driver.ts';

const FACTORIES: Record<DatasourceKind, () => ExportDriver> = {
  postgres: createPgExportDriver,
  mysql: createMysqlExportDriver,
  sqlite: createSqliteExportDriver,
  files: createFilesExportDriver,
};

export class ExportDrivers {
  readonly #open = new Map<string, ExportDriver>();

  for(kind: string): ExportDriver {
    let driver = this.#open.get(kind);
    if (driver === undefined) {
      const create = FACTORIES[kind as DatasourceKind] as (() => ExportDriver) | undefined;
      if (create === undefined) throw new SluiceError('INTERNAL', `No export driver for datasource kind "${kind}".`);
      driver = create();
      this.#open.set(kind, driver);
    }
    return driver;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#open.values()].map((d) => d.close()));
    this.#open.clear();
  }
}
