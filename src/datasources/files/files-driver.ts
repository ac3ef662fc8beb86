/**
 * A folder of Parquet, CSV and JSON files as a datasource, on the API
 * thread: DuckDB's parser for the statement check (statement-check.ts),
 * the folder's own locked DuckDB for the catalog and health
 * (folder-engine.ts), and the dialect. Exports run in the query workers
 * (export/files-export-driver.ts), each with a DuckDB of its own over the
 * same folder. Every call here is asynchronous on DuckDB's own threads and
 * the file system's, so none holds the event loop.
 */
import { access, constants } from 'node:fs/promises';
import type { Logger } from '../../logger.ts';
import type { DatasourceDriver, DriverCapabilities } from '../driver.ts';
import { duckdbDialect } from './duckdb-dialect.ts';
import { duckdbError } from './duckdb-errors.ts';
import { FolderEngine } from './folder-engine.ts';
import { folderOf } from './folder-url.ts';
import { describeTable, listTables } from './introspection.ts';
import { checkStatement, classifySql, ownLimit } from './statement-check.ts';
import { SqlParser } from './sql-tree.ts';
import { toSluiceError } from '../../errors.ts';

export interface FilesSpec {
  id: string;
  url: string;
}

/** DuckDB cancels by interrupt, the engine boundary is the locked instance, and readers do not block each other. */
export const FILES_CAPABILITIES: DriverCapabilities = { cancel: true, engineReadOnly: true, concurrentStatements: true };

export function openFilesDriver(spec: FilesSpec, log: Logger): DatasourceDriver {
  const folder = folderOf(spec.url);
  const engine = new FolderEngine(folder, (line) => log.info(`Datasource "${spec.id}": ${line}`));
  const parser = new SqlParser();
  const mapped = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw duckdbError(error, folder) ?? toSluiceError(error);
    }
  };
  return {
    kind: 'files',
    capabilities: FILES_CAPABILITIES,
    dialect: duckdbDialect,
    checkStatement: (sql) => checkStatement(parser, sql),
    classify: (sql) => classifySql(parser, sql),
    ownLimit: (sql) => ownLimit(parser, sql),
    listTables: (options) => mapped(() => listTables(engine, options)),
    describeTable: (schema, name) => mapped(() => describeTable(engine, schema, name)),
    health: () => mapped(async () => void (await engine.current())),
    startupWarnings: () => startupWarnings(spec.id, engine),
    async close() {
      await Promise.all([engine.close(), parser.close()]);
    },
  };
}

async function startupWarnings(id: string, engine: FolderEngine): Promise<string[]> {
  const lines: string[] = [];
  try {
    // The engine logged each skipped file as it scanned; the warning counts them.
    const { skipped } = await engine.current();
    if (skipped.length > 0) lines.push(`Warning: datasource "${id}": ${skipped.length} file(s) or folder(s) of its folder are skipped; the lines above say which and why.`);
  } catch {
    return [`Warning: datasource "${id}": its folder is missing or cannot be read; its queries answer DATASOURCE_UNAVAILABLE until it can.`];
  }
  const writable = await access(engine.folder, constants.W_OK).then(() => true, () => false);
  if (writable) {
    lines.push(
      `Warning: datasource "${id}": the server's user may write its folder. Sluice runs only SELECT statements there, but a folder the server can only read is the safer boundary.`,
    );
  }
  return lines;
}
