/**
 * Schema lookups for the schema routes and the AI tools: tables with their
 * estimated sizes, and one table's columns, primary key and foreign keys,
 * read from pg_catalog with bound values, bounded in count, and hiding the
 * system schemas.
 */
import type pg from 'pg';
import type { ListTablesOptions, TableDetail, TableSummary } from '../driver.ts';
import type { TableKind } from '../../vocabulary.ts';

const KINDS: Record<string, TableKind> = { r: 'table', v: 'view', m: 'materialized_view', f: 'foreign_table', p: 'partitioned_table' };
const HIDDEN = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'`;

function estimate(reltuples: number): number | null {
  return reltuples < 0 ? null : Math.round(reltuples);
}

export async function listTables(db: pg.Pool, opts: ListTablesOptions): Promise<{ tables: TableSummary[]; total: number }> {
  const { rows } = await db.query<{ schema: string; name: string; kind: string; reltuples: number; total: string }>(
    `SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind, c.reltuples::float8 AS reltuples,
            count(*) OVER ()::text AS total
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r','v','m','f','p') AND ${HIDDEN}
        AND ($1::text IS NULL OR n.nspname = $1)
        AND ($2::text IS NULL OR strpos(lower(c.relname), lower($2)) > 0)
      ORDER BY n.nspname, c.relname
      LIMIT $3`,
    [opts.schema ?? null, opts.search ?? null, opts.limit],
  );
  const total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  const tables: TableSummary[] = rows.map((r) => ({ schema: r.schema, name: r.name, kind: KINDS[r.kind] ?? 'table', estimatedRows: estimate(r.reltuples) }));
  return { tables, total };
}

export async function describeTable(db: pg.Pool, schema: string, name: string): Promise<TableDetail | null> {
  const { rows: [table] } = await db.query<{ oid: number; kind: string; reltuples: number }>(
    `SELECT c.oid::int AS oid, c.relkind::text AS kind, c.reltuples::float8 AS reltuples
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r','v','m','f','p') AND ${HIDDEN}`,
    [schema, name],
  );
  if (table === undefined) return null;
  const { rows: columns } = await db.query<{ name: string; type: string; nullable: boolean }>(
    `SELECT a.attname AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
       FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [table.oid],
  );
  // Key columns travel as JSON arrays, not joined text: a column name may itself hold a comma.
  const { rows: constraints } = await db.query<{ name: string; type: string; cols: string; fschema: string | null; ftable: string | null; fcols: string | null }>(
    `SELECT con.conname AS name, con.contype::text AS type,
            (SELECT json_agg(a.attname ORDER BY k.i)::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n) AS cols,
            fn.nspname AS fschema, fc.relname AS ftable,
            (SELECT json_agg(a.attname ORDER BY k.i)::text FROM unnest(con.confkey) WITH ORDINALITY k(n, i)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n) AS fcols
       FROM pg_catalog.pg_constraint con
       LEFT JOIN pg_catalog.pg_class fc ON fc.oid = con.confrelid
       LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid = fc.relnamespace
      WHERE con.conrelid = $1 AND con.contype IN ('p', 'f') ORDER BY con.conname`,
    [table.oid],
  );
  const pk = constraints.find((c) => c.type === 'p');
  const names = (json: string | null): string[] => (json === null ? [] : (JSON.parse(json) as string[]));
  return {
    schema,
    name,
    kind: KINDS[table.kind] ?? 'table',
    estimatedRows: estimate(table.reltuples),
    columns,
    primaryKey: pk ? names(pk.cols) : [],
    foreignKeys: constraints
      .filter((c) => c.type === 'f')
      .map((c) => ({ name: c.name, columns: names(c.cols), references: { schema: c.fschema ?? '', table: c.ftable ?? '', columns: names(c.fcols) } })),
  };
}
