/**
 * The column plan of a statement, as an export makes it: described by
 * PostgreSQL on a node-postgres session of its own, as the query worker does.
 */
import pg from 'pg';
import type { PlannedColumn } from '../../src/columns/column-plan.ts';
import { planPgColumns } from '../../src/datasources/postgres/pg-column-types.ts';
import { describeQuery } from '../../src/datasources/postgres/export/describe-query.ts';
import { clientConfig } from '../../src/datasources/postgres/export/pg-connect.ts';
import { DATABASE_URL } from './tables.ts';

export async function plannedColumns(sql: string, url = DATABASE_URL): Promise<PlannedColumn[]> {
  const client = new pg.Client(clientConfig(url));
  await client.connect();
  try {
    return planPgColumns((await describeQuery(client, sql)).columns);
  } finally {
    await client.end();
  }
}
