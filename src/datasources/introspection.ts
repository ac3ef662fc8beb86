/**
 * Schema lookups as the schema routes and the AI tools make them: through
 * the datasource's driver, in the datasource's turn (a lookup waits like a
 * query where the engine serves one session at a time).
 */
import type { ListTablesOptions, TableDetail, TableSummary } from './driver.ts';
import type { Datasource } from './registry.ts';

export type { TableDetail, TableSummary } from './driver.ts';

export function listTables(ds: Datasource, options: ListTablesOptions): Promise<{ tables: TableSummary[]; total: number }> {
  return ds.limiter.run(() => ds.driver.listTables(options));
}

export function describeTable(ds: Datasource, schema: string, name: string): Promise<TableDetail | null> {
  return ds.limiter.run(() => ds.driver.describeTable(schema, name));
}
