/**
 * A small artifact for the statement builders, with no server and no
 * database: columns planned from PostgreSQL type names the way an export
 * plans them, rows written as numbered Parquet parts in a temp dir, and an
 * in-memory DuckDB that runs a built statement as a read worker does
 * (TimeZone UTC, one JSON text per row, values bound as parameters).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { BoundValue } from '../../src/artifacts/filter-values.ts';
import type { PartFile } from '../../src/artifacts/read-sql.ts';
import { quoteIdent, quoteLiteral, type PlannedColumn } from '../../src/columns/column-plan.ts';
import { planPgColumns } from '../../src/datasources/postgres/pg-column-types.ts';

/** A result column as PostgreSQL describes it: `numeric(12,2)` carries its precision and scale. */
export interface ColumnSpec {
  name: string;
  type: string;
}

export interface ArtifactFixture {
  columns: PlannedColumn[];
  parts: PartFile[];
  /** Runs a built statement and returns its rows, each parsed from the JSON text the statement selects. */
  run(statement: { sql: string; params: BoundValue[] }): Promise<unknown[][]>;
  /** Runs plain SQL on the same connection. */
  query(sql: string, params?: BoundValue[]): Promise<unknown[][]>;
  close(): void;
}

export function planned(specs: ColumnSpec[]): PlannedColumn[] {
  return planPgColumns(
    specs.map(({ name, type }) => {
      const numeric = /^numeric\((\d+),(\d+)\)$/.exec(type);
      return {
        name,
        typname: numeric ? 'numeric' : type,
        category: '',
        elementTypname: null,
        numericPrecision: numeric ? Number(numeric[1]) : null,
        numericScale: numeric ? Number(numeric[2]) : null,
      };
    }),
  );
}

export async function openDuck(): Promise<{ connection: DuckDBConnection; close(): void }> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  return {
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * Writes `parts` (lists of rows, values as the text or number PostgreSQL
 * would send, null for NULL) as part-00000.parquet, part-00001.parquet, ...:
 * the names an export gives them, whose order is the artifact's row order.
 */
export async function artifactFixture(specs: ColumnSpec[], parts: (string | number | boolean | null)[][][]): Promise<ArtifactFixture> {
  const columns = planned(specs);
  const dir = mkdtempSync(join(tmpdir(), 'sluice-builder-'));
  const duck = await openDuck();
  const { connection } = duck;
  const files: PartFile[] = [];
  const definition = columns.map((c) => `${quoteIdent(c.storageName)} ${c.duckType}`).join(', ');
  const casts = columns.map((c) => `CAST(? AS ${c.duckType})`).join(', ');
  for (const [index, rows] of parts.entries()) {
    await connection.run(`CREATE OR REPLACE TABLE part (${definition})`);
    for (const row of rows) await connection.run(`INSERT INTO part SELECT ${casts}`, row);
    const path = join(dir, `part-${String(index).padStart(5, '0')}.parquet`);
    await connection.run(`COPY part TO ${quoteLiteral(path)} (FORMAT parquet)`);
    files.push({ path, rows: rows.length });
  }
  await connection.run('DROP TABLE part');
  const query = async (sql: string, params: BoundValue[] = []) => (await connection.runAndReadAll(sql, params)).getRowsJS() as unknown[][];
  return {
    columns,
    parts: files,
    query,
    async run(statement) {
      return (await query(statement.sql, statement.params)).map((r) => JSON.parse(String(r[0])) as unknown[]);
    },
    close() {
      duck.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
