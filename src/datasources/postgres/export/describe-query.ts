/**
 * Learns the shape of a result before any row is fetched: the column names,
 * type OIDs and type modifiers from PostgreSQL's own statement description,
 * then type names and categories from the catalog. A numeric's precision is
 * taken only for a column that comes straight from a table; computed
 * numerics stay unconstrained (kept as text).
 */
import type pg from 'pg';
import type { ColumnTypeInfo } from '../pg-column-types.ts';
import { DescribeStatement } from './describe-statement.ts';

export async function describeQuery(client: pg.Client, text: string): Promise<{
  columns: ColumnTypeInfo[];
  paramTypes: number[];
}> {
  const described = await client.query(new DescribeStatement(text)).result;
  const columns = described.fields;
  const oids = [...new Set(columns.map((c) => c.dataTypeID))];
  const typeRows = oids.length
    ? await client.query<{ oid: string; typname: string; category: string; elem: string | null }>(
        `SELECT t.oid::int AS oid,
                COALESCE(b.typname, t.typname) AS typname,
                COALESCE(b.typcategory, t.typcategory)::text AS category,
                e.typname AS elem
           FROM pg_catalog.pg_type t
           LEFT JOIN pg_catalog.pg_type b ON t.typtype = 'd' AND b.oid = t.typbasetype
           LEFT JOIN pg_catalog.pg_type e ON e.oid = COALESCE(b.typelem, t.typelem) AND COALESCE(b.typcategory, t.typcategory) = 'A'
          WHERE t.oid = ANY($1::oid[])`,
        [pgArray(oids)],
      ).then((r) => r.rows)
    : [];
  const types = new Map(typeRows.map((r) => [Number(r.oid), r]));
  return {
    paramTypes: described.paramTypes,
    columns: columns.map((c) => {
      const t = types.get(c.dataTypeID);
      // A table column's modifier is its declared one; an expression's may come from a cast, and is not used.
      const typmod = c.tableID !== 0 && t?.typname === 'numeric' ? c.dataTypeModifier : -1;
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

/** Array parameters as PostgreSQL array text, cast in the statement. */
function pgArray(values: number[]): string {
  return `{${values.join(',')}}`;
}
