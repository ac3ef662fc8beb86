/** A node-postgres client on the test database for one file's tests: connected before them, ended after. */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { clientConfig } from '../../../src/datasources/postgres/export/pg-connect.ts';

export function testClient(): () => pg.Client {
  let client: pg.Client | undefined;
  beforeAll(async () => {
    client = new pg.Client(clientConfig(process.env.TEST_DATABASE_URL!));
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });
  return () => client!;
}
