/**
 * Schema lookups for the schema routes and the AI tools: the tables and
 * views of `main` (the only schema: ATTACH is refused), with row counts
 * from sqlite_stat1 when ANALYZE has written it, and one table's columns,
 * primary key and foreign keys from SQLite's table-valued pragmas.
 */
import type { ListTablesOptions, TableDetail, TableSummary } from '../driver.ts';
import type { SqliteConnection, SqliteValue } from './engine/sqlite-connection.ts';
import { SQLITE_DEFAULT_SCHEMA } from './sqlite-dialect.ts';
import { foreignKeyNamer } from './sql/foreign-key-names.ts';

/** SQLite's own tables (sqlite_schema, sqlite_sequence, sqlite_stat1, ...) are not the datasource's. */
const USER_RELATIONS = `type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`;

const text = (value: SqliteValue | undefined): string => (value === null || value === undefined ? '' : String(value));

/** Row counts by table from sqlite_stat1, when ANALYZE has written it: the first number of a table's stat. */
function statRows(db: SqliteConnection): Map<string, number> {
  const counts = new Map<string, number>();
  if (db.all(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'`).length === 0) return counts;
  for (const row of db.all('SELECT tbl, stat FROM sqlite_stat1')) {
    const rows = Number(text(row.stat).split(' ')[0]);
    if (Number.isSafeInteger(rows)) counts.set(text(row.tbl), Math.max(rows, counts.get(text(row.tbl)) ?? 0));
  }
  return counts;
}

export function listTables(db: SqliteConnection, options: ListTablesOptions): { tables: TableSummary[]; total: number } {
  if (options.schema !== undefined && options.schema !== SQLITE_DEFAULT_SCHEMA) return { tables: [], total: 0 };
  const rows = db.all(
    `SELECT name, type, count(*) OVER () AS total FROM sqlite_schema
      WHERE ${USER_RELATIONS} AND (?1 IS NULL OR instr(lower(name), lower(?1)) > 0)
      ORDER BY name LIMIT ?2`,
    [options.search ?? null, BigInt(options.limit)],
  );
  const counts = statRows(db);
  const tables: TableSummary[] = rows.map((row) => ({
    schema: SQLITE_DEFAULT_SCHEMA,
    name: text(row.name),
    kind: row.type === 'view' ? 'view' : 'table',
    estimatedRows: counts.get(text(row.name)) ?? null,
  }));
  return { tables, total: rows.length > 0 ? Number(rows[0]!.total) : 0 };
}

function primaryKey(columns: Record<string, SqliteValue>[]): string[] {
  return columns
    .filter((c) => Number(c.pk) > 0)
    .sort((a, b) => Number(a.pk) - Number(b.pk))
    .map((c) => text(c.name));
}

function foreignKeys(db: SqliteConnection, table: string, createSql: string | null): TableDetail['foreignKeys'] {
  const name = foreignKeyNamer(table, createSql);
  const byId = new Map<string, { table: string; from: string[]; to: (string | null)[] }>();
  for (const row of db.all('SELECT id, "table" AS parent, "from" AS source, "to" AS target FROM pragma_foreign_key_list(?1) ORDER BY id, seq', [table])) {
    const key = byId.get(text(row.id)) ?? { table: text(row.parent), from: [], to: [] };
    key.from.push(text(row.source));
    key.to.push(row.target === null ? null : text(row.target));
    byId.set(text(row.id), key);
  }
  // SQLite lists a table's keys last-declared first; declaration order reads better.
  return [...byId.values()].reverse().map((key) => {
    // A key that names no parent columns refers to the parent's primary key.
    const to = key.to.every((c) => c !== null) ? (key.to as string[]) : primaryKey(db.all('SELECT name, pk FROM pragma_table_info(?1)', [key.table]));
    return { name: name(key.from), columns: key.from, references: { schema: SQLITE_DEFAULT_SCHEMA, table: key.table, columns: to } };
  });
}

export function describeTable(db: SqliteConnection, schema: string, name: string): TableDetail | null {
  if (schema !== SQLITE_DEFAULT_SCHEMA) return null;
  const [relation] = db.all(`SELECT name, type, sql FROM sqlite_schema WHERE ${USER_RELATIONS} AND name = ?1`, [name]);
  if (relation === undefined) return null;
  const columns = db.all('SELECT name, type, "notnull" AS not_null, pk FROM pragma_table_info(?1) ORDER BY cid', [name]);
  const keyColumns = primaryKey(columns);
  // An INTEGER PRIMARY KEY is the rowid: never NULL, though SQLite does not mark it NOT NULL.
  const rowid = keyColumns.length === 1 ? columns.find((c) => text(c.name) === keyColumns[0] && text(c.type).toUpperCase() === 'INTEGER') : undefined;
  return {
    schema,
    name,
    kind: relation.type === 'view' ? 'view' : 'table',
    estimatedRows: statRows(db).get(name) ?? null,
    columns: columns.map((c) => ({ name: text(c.name), type: text(c.type).toLowerCase(), nullable: Number(c.not_null) === 0 && c !== rowid })),
    primaryKey: keyColumns,
    foreignKeys: relation.type === 'view' ? [] : foreignKeys(db, name, relation.sql === null ? null : text(relation.sql)),
  };
}
