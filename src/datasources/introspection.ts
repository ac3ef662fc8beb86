/**
 * Schema lookups as the schema routes and the AI tools make them: through
 * the datasource's driver, in the datasource's turn (a lookup waits like a
 * query where the engine serves one session at a time). On a datasource with
 * row-level scope the engine's row estimates are left out: they count every
 * caller's rows, not the rows this caller may see.
 */
import type { ListTablesOptions, TableDetail, TableSummary } from './driver.ts';
import type { Datasource } from './registry.ts';

export type { TableDetail, TableSummary } from './driver.ts';

function scoped(ds: Datasource): boolean {
  return Object.keys(ds.claimSettings).length > 0;
}

export async function listTables(ds: Datasource, options: ListTablesOptions): Promise<{ tables: TableSummary[]; total: number }> {
  const listed = await ds.limiter.run(() => ds.driver.listTables(options));
  return scoped(ds) ? { ...listed, tables: listed.tables.map((t) => ({ ...t, estimatedRows: null })) } : listed;
}

export async function describeTable(ds: Datasource, schema: string, name: string): Promise<TableDetail | null> {
  const detail = await ds.limiter.run(() => ds.driver.describeTable(schema, name));
  return detail !== null && scoped(ds) ? { ...detail, estimatedRows: null } : detail;
}
