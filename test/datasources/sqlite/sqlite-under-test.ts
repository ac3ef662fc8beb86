/**
 * The SQLite driver's two halves on a test file, as the contract suite
 * takes them (DriverUnderTest): the driver opened as the registry opens
 * it, the export half as a query worker creates it, and an admin
 * connection with the file's own library that can also tell whether a
 * statement still reads the file.
 */
import { openReadOnly } from '../../../src/datasources/sqlite/engine/open-connection.ts';
import { createSqliteExportDriver } from '../../../src/datasources/sqlite/export/sqlite-export-driver.ts';
import { openSqliteDriver } from '../../../src/datasources/sqlite/sqlite-driver.ts';
import { quietLogger } from '../../../src/logger.ts';
import type { DriverUnderTest } from '../driver-fixture.ts';
import { SqliteTestFile, type WritableDatabase } from './sqlite-test-file.ts';

export function sqliteUnderTest(file: SqliteTestFile): DriverUnderTest {
  const driver = openSqliteDriver({ id: 'contract', url: file.url }, quietLogger);
  const exports = createSqliteExportDriver();
  let admin: WritableDatabase | null = null;
  const connection = async () => {
    if (admin === null) {
      admin = await file.writable();
      admin.function('dc_reader_active', () => (file.readerActive() ? 1 : 0));
    }
    return admin;
  };
  return {
    driver,
    exports,
    url: file.url,
    async admin(sql) {
      const db = await connection();
      const statement = db.prepare(sql);
      // A statement that returns no rows (DDL, an INSERT) runs; one that returns rows answers them.
      try {
        return statement.all() as Record<string, unknown>[];
      } catch (error) {
        if (!/does not return data|returns no data/i.test((error as Error).message)) throw error;
        statement.run();
        return [];
      }
    },
    async engineError(sql) {
      // The library the statement process uses, opened as it opens the file.
      const readOnly = await openReadOnly(file.file, { busyTimeoutMs: 1_000 });
      try {
        readOnly.prepare(sql).rows([]).next();
        return new Error(`the engine ran ${sql} without an error`);
      } catch (error) {
        return error;
      } finally {
        readOnly.close();
      }
    },
    openUnreachable: () => openSqliteDriver({ id: 'unreachable', url: `sqlite://${file.dir}/no/such/dir/missing.db` }, quietLogger),
    async close() {
      (admin as WritableDatabase | null)?.close();
      await Promise.all([driver.close(), exports.close()]);
      file.remove();
    },
  };
}
