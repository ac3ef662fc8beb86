/**
 * The column plan of a statement, as an export makes it: described by
 * PostgreSQL on a node-postgres session of its own, as the query worker does.
 */
import pg from 'pg';
import { planColumns, type PlannedColumn } from '../../src/columns/column-plan.ts';
import { describeQuery } from '../../src/worker/export/describe-query.ts';
import { clientConfig } from '../../src/worker/export/pg-connect.ts';
import { DATABASE_URL } from './tables.ts';

export async function plannedColumns(sql: string, url = DATABASE_URL): Promise<PlannedColumn[]> {
  const client = new pg.Client(clientConfig(url));
  await client.connect();
  try {
    return planColumns((await describeQuery(client, sql)).columns);
  } finally {
    await client.end();
  }
}
