/**
 * Fresh PostgreSQL schemas for catalog tests: each catalog gets its own
 * randomly named schema, dropped when the file ends, so test files running
 * side by side on one database never see each other's rows. The tests need
 * a real server (concurrent transactions on separate connections), so they
 * skip, and say why, without TEST_DATABASE_URL or on the embedded one.
 */
import { randomBytes } from 'node:crypto';
import { openAdminSql } from '../helpers/admin-sql.ts';

export const PG_URL = process.env.TEST_DATABASE_URL;
export const PG_SKIP_REASON =
  PG_URL === undefined || PG_URL === ''
    ? 'TEST_DATABASE_URL is not set'
    : process.env.SLUICE_TEST_EMBEDDED === '1'
      ? 'the embedded database serves one session and cannot run concurrent transactions'
      : null;

export class TestSchemas {
  readonly #names: string[] = [];

  fresh(): string {
    const name = `sluice_catalog_test_${randomBytes(6).toString('hex')}`;
    this.#names.push(name);
    return name;
  }

  async dropAll(): Promise<void> {
    if (PG_URL === undefined || this.#names.length === 0) return;
    const sql = openAdminSql(PG_URL);
    try {
      for (const name of this.#names.splice(0)) await sql.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    } finally {
      await sql.end();
    }
  }
}
