/**
 * The export half of every driver, by kind, for the query worker's entry:
 * each is imported and created the first time an export of its kind
 * arrives, so a worker loads only the engines it is asked to read (a
 * worker of a server reading only PostgreSQL never loads mysql2 or a SQL
 * grammar). The imports are literal paths, which the build keeps.
 */
import { SluiceError } from '../errors.ts';
import type { DatasourceKind, ExportDriver } from './driver.ts';

/**
 * A module loaded on demand. From the sources under tsx, a worker thread has
 * only tsx's require() hook (runtime/spawn-worker.ts) and this module is
 * CommonJS there, with a require of its own; everywhere else (the build,
 * Deno, Bun, the tests' main thread) it is an ES module and import() loads.
 */
function load<T>(viaImport: () => Promise<T>, viaRequire: () => T): Promise<T> {
  // __filename, not require: the build would put a require shim in require's place, but leaves __filename unset.
  return typeof __filename === 'string' ? Promise.resolve().then(viaRequire) : viaImport();
}

type Module<K extends string> = Record<K, () => ExportDriver>;

const FACTORIES: Record<DatasourceKind, () => Promise<ExportDriver>> = {
  postgres: async () =>
    (await load(() => import('./postgres/export/pg-export-driver.ts'), () => require('./postgres/export/pg-export-driver.ts') as Module<'createPgExportDriver'>)).createPgExportDriver(),
  mysql: async () =>
    (await load(() => import('./mysql/export/mysql-export-driver.ts'), () => require('./mysql/export/mysql-export-driver.ts') as Module<'createMysqlExportDriver'>)).createMysqlExportDriver(),
  sqlite: async () =>
    (await load(() => import('./sqlite/export/sqlite-export-driver.ts'), () => require('./sqlite/export/sqlite-export-driver.ts') as Module<'createSqliteExportDriver'>)).createSqliteExportDriver(),
  files: async () =>
    (await load(() => import('./files/export/files-export-driver.ts'), () => require('./files/export/files-export-driver.ts') as Module<'createFilesExportDriver'>)).createFilesExportDriver(),
};

export class ExportDrivers {
  readonly #open = new Map<string, Promise<ExportDriver>>();

  for(kind: string): Promise<ExportDriver> {
    let driver = this.#open.get(kind);
    if (driver === undefined) {
      const create = FACTORIES[kind as DatasourceKind] as (() => Promise<ExportDriver>) | undefined;
      if (create === undefined) return Promise.reject(new SluiceError('INTERNAL', `No export driver for datasource kind "${kind}".`));
      driver = create();
      // A failed import is tried again by the next export rather than remembered.
      driver.catch(() => this.#open.delete(kind));
      this.#open.set(kind, driver);
    }
    return driver;
  }

  async close(): Promise<void> {
    const open = await Promise.allSettled([...this.#open.values()]);
    this.#open.clear();
    await Promise.all(open.flatMap((d) => (d.status === 'fulfilled' ? [d.value.close()] : [])));
  }
}
