/**
 * Schema lookups for the schema routes and the AI tools, from
 * information_schema: tables and views with the engine's row estimates
 * (TABLE_ROWS), and one table's columns (COLUMN_TYPE, in lower case),
 * primary key and foreign keys; bounded in count, hiding the system
 * databases. Values are bound in prepared statements, so a search text is
 * data whatever the server's sql_mode.
 */
import type { Pool } from 'mysql2/promise';
import type { ListTablesOptions, TableDetail, TableSummary } from '../driver.ts';
import type { TableKind } from '../../vocabulary.ts';

const HIDDEN = `TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')`;

function kindOf(tableType: string): TableKind {
  return tableType.includes('VIEW') ? 'view' : 'table';
}

function estimate(rows: unknown): number | null {
  return rows === null || rows === undefined ? null : Math.round(Number(rows));
}

type Row = Record<string, unknown>;

async function rows(db: Pool, sql: string, values: unknown[]): Promise<Row[]> {
  const [result] = await db.execute(sql, values as (string | number | null)[]);
  return result as Row[];
}

export async function listTables(db: Pool, opts: ListTablesOptions): Promise<{ tables: TableSummary[]; total: number }> {
  const limit = Math.max(0, Math.trunc(opts.limit));
  const found = await rows(
    db,
    `SELECT TABLE_SCHEMA AS sch, TABLE_NAME AS name, TABLE_TYPE AS kind, TABLE_ROWS AS estimate, COUNT(*) OVER () AS total
       FROM information_schema.TABLES
      WHERE ${HIDDEN}
        AND (? IS NULL OR TABLE_SCHEMA = ?)
        AND (? IS NULL OR LOCATE(LOWER(?), LOWER(TABLE_NAME)) > 0)
      ORDER BY TABLE_SCHEMA, TABLE_NAME
      LIMIT ${limit}`,
    [opts.schema ?? null, opts.schema ?? null, opts.search ?? null, opts.search ?? null],
  );
  const total = found.length > 0 ? Number(found[0]!.total) : limit === 0 ? await countTables(db, opts) : 0;
  const tables = found.map((r) => ({ schema: String(r.sch), name: String(r.name), kind: kindOf(String(r.kind)), estimatedRows: r.kind === 'VIEW' ? null : estimate(r.estimate) }));
  return { tables, total };
}

async function countTables(db: Pool, opts: ListTablesOptions): Promise<number> {
  const [row] = await rows(
    db,
    `SELECT COUNT(*) AS total FROM information_schema.TABLES WHERE ${HIDDEN} AND (? IS NULL OR TABLE_SCHEMA = ?) AND (? IS NULL OR LOCATE(LOWER(?), LOWER(TABLE_NAME)) > 0)`,
    [opts.schema ?? null, opts.schema ?? null, opts.search ?? null, opts.search ?? null],
  );
  return Number(row?.total ?? 0);
}

export async function describeTable(db: Pool, schema: string, name: string): Promise<TableDetail | null> {
  const [table] = await rows(db, `SELECT TABLE_TYPE AS kind, TABLE_ROWS AS estimate FROM information_schema.TABLES WHERE ${HIDDEN} AND TABLE_SCHEMA = ? AND TABLE_NAME = ?`, [schema, name]);
  if (table === undefined) return null;
  const columns = await rows(
    db,
    `SELECT COLUMN_NAME AS name, LOWER(COLUMN_TYPE) AS type, IS_NULLABLE AS nullable FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
    [schema, name],
  );
  const keys = await rows(
    db,
    `SELECT CONSTRAINT_NAME AS name, COLUMN_NAME AS col, REFERENCED_TABLE_SCHEMA AS fschema, REFERENCED_TABLE_NAME AS ftable, REFERENCED_COLUMN_NAME AS fcol
       FROM information_schema.KEY_COLUMN_USAGE
      WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL)
      ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION`,
    [schema, name],
  );
  const foreign = new Map<string, TableDetail['foreignKeys'][number]>();
  for (const k of keys.filter((k) => k.name !== 'PRIMARY')) {
    const key = String(k.name);
    if (!foreign.has(key)) foreign.set(key, { name: key, columns: [], references: { schema: String(k.fschema), table: String(k.ftable), columns: [] } });
    foreign.get(key)!.columns.push(String(k.col));
    foreign.get(key)!.references.columns.push(String(k.fcol));
  }
  const kind = kindOf(String(table.kind));
  return {
    schema,
    name,
    kind,
    estimatedRows: kind === 'view' ? null : estimate(table.estimate),
    columns: columns.map((c) => ({ name: String(c.name), type: String(c.type), nullable: c.nullable === 'YES' })),
    primaryKey: keys.filter((k) => k.name === 'PRIMARY').map((k) => String(k.col)),
    foreignKeys: [...foreign.values()],
  };
}
