/**
 * The benchmark's source tables in the local PostgreSQL (bench.rows_5m,
 * bench.rows_10m): six columns of the types int8, numeric(12,2), text,
 * timestamptz, bool, float8; created once when missing (or rebuilt when an
 * older run left other column types), with a primary key on id so the
 * PostgreSQL OFFSET baseline walks an index rather than sorting the table.
 */
import { openAdminSql } from '../../test/helpers/admin-sql.ts';

export const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const COLUMN_TYPES = 'id int8, amount numeric, label text, created_at timestamptz, flag bool, score float8';

function createSql(table: string, rows: number): string {
  return `CREATE TABLE ${table} AS
    SELECT g::int8 id,
           round((g % 100000)::numeric / 7, 2)::numeric(12,2) amount,
           'name-' || md5(g::text) label,
           timestamptz '2024-01-01' + g * interval '1 second' created_at,
           g % 3 = 0 flag,
           (g * 1.000001)::float8 score
      FROM generate_series(1, ${rows}) g`;
}

/** Creates bench.<name> with `rows` rows unless it exists with that many; returns whether it was created. */
export async function ensureTable(name: string, rows: number, log: (line: string) => void): Promise<boolean> {
  const sql = openAdminSql(DATABASE_URL);
  try {
    const table = `bench.${name}`;
    const [found] = await sql.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [table]);
    if (found?.exists) {
      const [shape] = await sql.query<{ types: string }>(
        `SELECT string_agg(a.attname || ' ' || t.typname, ', ' ORDER BY a.attnum) AS types
           FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
          WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
        [table],
      );
      // ids are 1..rows with a primary key: min and max come from the index at once.
      const [range] =
        shape?.types === COLUMN_TYPES
          ? await sql.query<{ lo: string; hi: string }>(`SELECT min(id)::text AS lo, max(id)::text AS hi FROM ${table}`)
          : [];
      if (range?.lo === '1' && range.hi === String(rows)) return false;
      log(`${table} has other columns or rows (${shape?.types}; ids ${range?.lo}..${range?.hi}): rebuilding it`);
      await sql.query(`DROP TABLE ${table}`);
    }
    log(`creating ${table} (${rows.toLocaleString('en-US')} rows, once)...`);
    const t0 = performance.now();
    await sql.query('CREATE SCHEMA IF NOT EXISTS bench');
    await sql.query(`DROP TABLE IF EXISTS ${table}_building`);
    await sql.query(createSql(`${table}_building`, rows));
    await sql.query(`ALTER TABLE ${table}_building ADD CONSTRAINT ${name}_pkey PRIMARY KEY (id)`);
    await sql.query(`VACUUM ANALYZE ${table}_building`);
    await sql.query(`ALTER TABLE ${table}_building RENAME TO ${name}`);
    log(`  created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return true;
  } finally {
    await sql.end();
  }
}

/** The export's source: the first `rows` rows of bench.rows_5m (all of it at 5M). */
export function exportSql(rows: number): string {
  return `SELECT * FROM bench.rows_5m${rows < 5_000_000 ? ` WHERE id <= ${rows}` : ''}`;
}
