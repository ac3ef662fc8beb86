/**
 * SQLite's driver on the API thread: the statement check, labels and LIMIT
 * from a SQLite grammar, catalog reads on short-lived read-only
 * connections, and the dialect. Exports run in statement processes started
 * by the query workers (export/sqlite-export-driver.ts). A read-only file
 * serves any number of readers, and each statement has a process of its
 * own that can always be stopped: cancel and concurrency are both declared.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import type { Logger } from '../../logger.ts';
import type { DatasourceDriver, DriverCapabilities } from '../driver.ts';
import { readCatalog } from './catalog-connection.ts';
import { describeTable, listTables } from './introspection.ts';
import { sqliteDialect } from './sqlite-dialect.ts';
import { sqliteFileOf } from './sqlite-url.ts';
import { checkSqliteStatement } from './sql/check-statement.ts';
import { classifySqlite, sqliteOwnLimit } from './sql/classify.ts';

export const SQLITE_CAPABILITIES: DriverCapabilities = { cancel: true, engineReadOnly: true, concurrentStatements: true };

export interface SqliteSpec {
  id: string;
  url: string;
}

function writableByServer(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export function openSqliteDriver(spec: SqliteSpec, _log: Logger): DatasourceDriver {
  const file = sqliteFileOf(spec.url);
  return {
    kind: 'sqlite',
    capabilities: SQLITE_CAPABILITIES,
    dialect: sqliteDialect,
    checkStatement: checkSqliteStatement,
    classify: classifySqlite,
    ownLimit: sqliteOwnLimit,
    listTables: (options) => readCatalog(file, (db) => listTables(db, options)),
    describeTable: (schema, name) => readCatalog(file, (db) => describeTable(db, schema, name)),
    health: () => readCatalog(file, (db) => void db.all('SELECT count(*) AS n FROM sqlite_schema')),
    async startupWarnings() {
      if (!existsSync(file)) {
        return [`Warning: the SQLite file of datasource "${spec.id}" does not exist; its queries answer DATASOURCE_UNAVAILABLE until it does.`];
      }
      const warnings: string[] = [];
      if (writableByServer(file)) {
        warnings.push(
          `Warning: the server's user may write the SQLite file of datasource "${spec.id}". Sluice opens it read-only with query_only on, but a file the server can only read (chmod a-w, or a read-only mount) is the safer boundary.`,
        );
      }
      try {
        await this.health();
      } catch (error) {
        warnings.push(`Warning: datasource "${spec.id}" cannot be read yet (${(error as Error).message}).`);
      }
      return warnings;
    },
    close: async () => undefined,
  };
}
