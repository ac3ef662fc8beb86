/**
 * The driver contract suite on PostgreSQL: the database at TEST_DATABASE_URL,
 * or the embedded PGlite test/global-setup.ts starts when it is unset, opened
 * as the server opens it (embedded, it declares no cancel, so the cancel
 * cases skip by that capability). The fixture lives in its own schema
 * (pg-contract-fixture.ts), created and dropped here.
 */
import pg from 'pg';
import { openPostgresDriver } from '../../../src/datasources/postgres/postgres-driver.ts';
import { createPgExportDriver } from '../../../src/datasources/postgres/export/pg-export-driver.ts';
import { clientConfig } from '../../../src/datasources/postgres/export/pg-connect.ts';
import { quietLogger } from '../../../src/logger.ts';
import { openAdminSql } from '../../helpers/admin-sql.ts';
import { testDriverContract } from '../driver-contract.ts';
import { pgContractFixture } from './pg-contract-fixture.ts';

/** A port nothing listens on: connections are refused at once. */
const UNREACHABLE_URL = 'postgres://postgres@127.0.0.1:1/test';
const EMBEDDED = process.env.SLUICE_TEST_EMBEDDED === '1';

testDriverContract(EMBEDDED ? 'postgres (embedded PGlite)' : 'postgres', pgContractFixture, () => {
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined || url === '') throw new Error('TEST_DATABASE_URL is not set (test/global-setup.ts sets it to the embedded database).');
  const admin = openAdminSql(url);
  const driver = openPostgresDriver({ id: 'contract', url, embedded: EMBEDDED }, quietLogger);
  const exports = createPgExportDriver();
  return {
    driver,
    exports,
    url,
    admin: (sql) => admin.query(sql),
    async engineError(sql) {
      // node-postgres is what the export half speaks, so its errors are the ones mapError is given.
      const client = new pg.Client(clientConfig(url));
      await client.connect();
      try {
        return await client.query(sql).then(
          () => new Error(`the engine ran ${sql} without an error`),
          (error: unknown) => error,
        );
      } finally {
        await client.end();
      }
    },
    openUnreachable: () => openPostgresDriver({ id: 'unreachable', url: UNREACHABLE_URL, embedded: false }, quietLogger),
    async close() {
      await Promise.all([driver.close(), exports.close(), admin.end()]);
    },
  };
});
