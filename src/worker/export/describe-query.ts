/**
 * Learns the shape of a result before any row is fetched: the column names
 * and type OIDs from PostgreSQL's own statement description, then type names,
 * categories and numeric precision from the catalog. postgres.js does not
 * surface the type modifier, so a numeric's precision is taken from the
 * table column it comes from; computed numerics stay unconstrained (text).
 */
import type { Sql, TransactionSql } from 'postgres';
import type { ColumnTypeInfo } from '../../columns/column-plan.ts';

interface DescribedColumn {
  name: string;
  type: number;
  table: number;
  number: number;
}

type AnySql = Sql | TransactionSql;

export async function describeQuery(sql: AnySql, text: string, params: unknown[]): Promise<{
  columns: ColumnTypeInfo[];
  paramTypes: number[];
}> {
  const described = (await sql.unsafe(text, params as never[]).describe()) as unknown as {
    columns: DescribedColumn[] | null;
    types: number[];
  };
  const columns = described.columns ?? [];
  const oids = [...new Set(columns.map((c) => c.type))];
  const typeRows = oids.length
    ? await sql.unsafe<{ oid: number; typname: string; category: string; elem: string | null }[]>(
        `SELECT t.oid::int AS oid,
                COALESCE(b.typname, t.typname) AS typname,
                COALESCE(b.typcategory, t.typcategory)::text AS category,
                e.typname AS elem
           FROM pg_catalog.pg_type t
           LEFT JOIN pg_catalog.pg_type b ON t.typtype = 'd' AND b.oid = t.typbasetype
           LEFT JOIN pg_catalog.pg_type e ON e.oid = COALESCE(b.typelem, t.typelem) AND COALESCE(b.typcategory, t.typcategory) = 'A'
          WHERE t.oid = ANY($1::oid[])`,
        [pgArray(oids)],
      )
    : [];
  const types = new Map(typeRows.map((r) => [r.oid, r]));
  const numericSources = columns.filter((c) => c.table !== 0 && types.get(c.type)?.typname === 'numeric');
  const typmods = new Map<string, number>();
  if (numericSources.length > 0) {
    const rows = await sql.unsafe<{ rel: number; num: number; typmod: number }[]>(
      `SELECT attrelid::int AS rel, attnum::int AS num, atttypmod AS typmod
         FROM pg_catalog.pg_attribute
        WHERE (attrelid, attnum) IN (SELECT * FROM unnest($1::oid[], $2::int2[]))`,
      [pgArray(numericSources.map((c) => c.table)), pgArray(numericSources.map((c) => c.number))],
    );
    for (const r of rows) typmods.set(`${r.rel}:${r.num}`, r.typmod);
  }
  return {
    paramTypes: described.types ?? [],
    columns: columns.map((c) => {
      const t = types.get(c.type);
      const typmod = c.table !== 0 ? (typmods.get(`${c.table}:${c.number}`) ?? -1) : -1;
      // numeric typmod packs ((precision << 16) | scale) + 4; -1 means unconstrained.
      const constrained = typmod >= 4;
      return {
        name: c.name,
        typname: t?.typname ?? 'unknown',
        category: t?.category ?? 'X',
        elementTypname: t?.elem ?? null,
        numericPrecision: constrained ? ((typmod - 4) >> 16) & 0xffff : null,
        numericScale: constrained ? (typmod - 4) & 0xffff : null,
      };
    }),
  };
}

/** Array parameters as PostgreSQL array text: connections run without type fetching. */
function pgArray(values: number[]): string {
  return `{${values.join(',')}}`;
}
