/**
 * The driver contract suite on MySQL/MariaDB: the server at TEST_MYSQL_URL,
 * opened as the server opens it, on a database of the file's own
 * (mysql-contract-fixture.ts), created and dropped here. Without
 * TEST_MYSQL_URL the suite is skipped with the reason shown.
 */
import mysql from 'mysql2';
import { describe } from 'vitest';
import { createMysqlExportDriver } from '../../../src/datasources/mysql/export/mysql-export-driver.ts';
import { openMysqlDriver } from '../../../src/datasources/mysql/mysql-driver.ts';
import { mysqlTarget } from '../../../src/datasources/mysql/mysql-url.ts';
import { quietLogger } from '../../../src/logger.ts';
import { testDriverContract } from '../driver-contract.ts';
import { adminClient } from './admin-client.ts';
import { CONTRACT_DATABASE, mysqlContractFixture } from './mysql-contract-fixture.ts';
import { mysqlTitle, NO_MYSQL, urlWithDatabase } from './mysql-test-url.ts';

/** A port nothing listens on: connections are refused at once. */
const UNREACHABLE_URL = 'mysql://root@127.0.0.1:1/test';

describe.skipIf(NO_MYSQL)(mysqlTitle('MySQL/MariaDB driver contract'), () => {
  testDriverContract('mysql (MariaDB)', mysqlContractFixture, () => {
    const url = urlWithDatabase(CONTRACT_DATABASE);
    const admin = adminClient();
    const driver = openMysqlDriver({ id: 'contract', url }, quietLogger);
    const exports = createMysqlExportDriver();
    return {
      driver,
      exports,
      url,
      admin: (sql) => admin.query(sql),
      async engineError(sql) {
        // mysql2's callback API is what the export half speaks, so its errors are the ones mapError is given.
        const connection = mysql.createConnection(mysqlTarget(url).options);
        try {
          return await new Promise((resolve) => {
            connection.query(sql, (error) => resolve(error ?? new Error(`the engine ran ${sql} without an error`)));
          });
        } finally {
          connection.destroy();
        }
      },
      openUnreachable: () => openMysqlDriver({ id: 'unreachable', url: UNREACHABLE_URL }, quietLogger),
      async close() {
        await Promise.all([driver.close(), exports.close(), admin.end()]);
      },
    };
  });
});
