/**
 * The driver contract suite on a files datasource: a folder built in a
 * temporary directory by an unrestricted DuckDB (the admin connection),
 * read by the driver's two halves as the server opens them. The admin
 * also answers which statements the export half's engine is running: an
 * embedded DuckDB has no process list another connection could read, so
 * the export half keeps its own (running()), and the admin sees it as a
 * table, refreshed before each of its statements.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { openFilesDriver } from '../../../src/datasources/files/files-driver.ts';
import { createFilesExportDriver } from '../../../src/datasources/files/export/files-export-driver.ts';
import { FolderEngine } from '../../../src/datasources/files/folder-engine.ts';
import { quietLogger } from '../../../src/logger.ts';
import { testDriverContract } from '../driver-contract.ts';
import { filesContractFixture, SCHEMA } from './files-contract-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'sluice-files-contract-'));
mkdirSync(join(dir, SCHEMA));

testDriverContract('files (DuckDB over a folder)', filesContractFixture(dir), () => {
  const url = pathToFileURL(dir).href;
  const driver = openFilesDriver({ id: 'contract', url }, quietLogger);
  const exports = createFilesExportDriver();
  const adminInstance = DuckDBInstance.create(':memory:');
  const adminConnection = adminInstance.then((instance) => instance.connect());
  const engine = new FolderEngine(dir, () => undefined);
  return {
    driver,
    exports,
    url,
    async admin(sql) {
      const admin = await adminConnection;
      await admin.run('CREATE OR REPLACE TEMP TABLE running_statements (sql VARCHAR)');
      for (const statement of exports.running()) await admin.run('INSERT INTO running_statements VALUES ($1)', [statement]);
      return (await admin.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
    },
    async engineError(sql) {
      // The export half's engine: a locked DuckDB over the folder, as DuckDB's client throws.
      const connection = await engine.connect();
      try {
        return await connection.run(sql).then(
          () => new Error(`the engine ran ${sql} without an error`),
          (error: unknown) => error,
        );
      } finally {
        connection.closeSync();
      }
    },
    openUnreachable: () => openFilesDriver({ id: 'unreachable', url: pathToFileURL(join(dir, 'no such folder')).href }, quietLogger),
    async close() {
      await Promise.all([driver.close(), exports.close(), engine.close()]);
      (await adminConnection).closeSync();
      (await adminInstance).closeSync();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
