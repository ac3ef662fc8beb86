/**
 * A files datasource's catalog: its tables are the folder's files as the
 * last scan found them (folder-engine.ts), each a view; a table's columns
 * are what DuckDB reads from its file, with DuckDB's type names in lower
 * case. Files have no keys and DuckDB cannot know a column holds no NULL,
 * so every column is nullable and no key is listed.
 */
import type { ListTablesOptions, TableDetail, TableSummary } from '../driver.ts';
import type { FolderEngine, ServedTable } from './folder-engine.ts';

function summary(table: ServedTable): TableSummary {
  return { schema: table.schema, name: table.name, kind: 'table', estimatedRows: table.estimatedRows };
}

export async function listTables(engine: FolderEngine, options: ListTablesOptions): Promise<{ tables: TableSummary[]; total: number }> {
  const { tables } = await engine.current();
  const search = options.search?.toLowerCase();
  const matching = tables
    .filter((t) => options.schema === undefined || t.schema === options.schema)
    .filter((t) => search === undefined || t.name.toLowerCase().includes(search))
    .sort((a, b) => (a.schema === b.schema ? compare(a.name, b.name) : compare(a.schema, b.schema)));
  return { tables: matching.slice(0, options.limit).map(summary), total: matching.length };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function describeTable(engine: FolderEngine, schema: string, name: string): Promise<TableDetail | null> {
  const { tables } = await engine.current();
  const table = tables.find((t) => t.schema === schema && t.name === name);
  if (table === undefined) return null;
  const connection = await engine.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT column_name, lower(data_type) FROM duckdb_columns()
        WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 ORDER BY column_index`,
      [schema, name],
    );
    const columns = reader.getRowsJS().map(([column, type]) => ({ name: String(column), type: String(type), nullable: true }));
    return { ...summary(table), columns, primaryKey: [], foreignKeys: [] };
  } finally {
    connection.closeSync();
  }
}
