/**
 * The same small shop table (`shop_orders`: id, region, total, created_at)
 * on each kind that needs no PostgreSQL, built with the engine's own tools:
 * a SQLite file (through the runtime's SQLite, as the catalog opens it), a
 * folder with one Parquet file (written by DuckDB), and a MariaDB database
 * when TEST_MYSQL_URL names a server. What the rows are is computed here
 * too, so tests check answers against plain arithmetic.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import { openSqlite } from '../../../src/runtime/sqlite.ts';

export const ROWS = 1000;
export const REGIONS = ['north', 'south', 'east', 'west'] as const;

export interface ShopRow {
  id: number;
  region: string;
  /** In cents, so sums are exact here. */
  totalCents: number;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  createdAt: string;
}

export const SHOP: ShopRow[] = Array.from({ length: ROWS }, (_, i) => {
  const id = i + 1;
  const day = new Date(Date.UTC(2025, 0, 1 + (id % 90), id % 24, 0, 0));
  return { id, region: REGIONS[id % 4]!, totalCents: (id % 50) * 100 + 25, createdAt: day.toISOString().slice(0, 19).replace('T', ' ') };
});

export interface KindSource {
  kind: 'sqlite' | 'files' | 'mysql';
  dialect: string;
  label: string;
  fence: string;
  url: string;
  /** The table as an explore names it (schema.table). */
  table: string;
  close(): Promise<void>;
}

export function sqliteSource(): KindSource {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-kind-sqlite-'));
  const file = join(dir, 'shop.db');
  const db = openSqlite(file);
  db.exec('CREATE TABLE shop_orders (id INTEGER PRIMARY KEY, region TEXT NOT NULL, total REAL NOT NULL, created_at TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO shop_orders VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const r of SHOP) insert.run(r.id, r.region, r.totalCents / 100, r.createdAt);
  })();
  // A read-only open of a WAL file needs its -shm beside it: hand over a plain rollback-journal file.
  db.exec('PRAGMA journal_mode = DELETE');
  db.close();
  return { kind: 'sqlite', dialect: 'sqlite', label: 'SQLite', fence: 'sqlite', url: `sqlite://${file}`, table: 'main.shop_orders', close: async () => rmSync(dir, { recursive: true, force: true }) };
}

export async function filesSource(): Promise<KindSource> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-kind-files-'));
  mkdirSync(dir, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    // The same formulas as SHOP's, in DuckDB's SQL (its lists count from 1).
    await connection.run(`CREATE TABLE shop_orders AS SELECT range::INTEGER AS id, ['north', 'south', 'east', 'west'][range % 4 + 1] AS region,
        (((range % 50) * 100 + 25) / 100)::DECIMAL(10,2) AS total,
        TIMESTAMP '2025-01-01' + to_days((range % 90)::INTEGER) + to_hours((range % 24)::INTEGER) AS created_at
      FROM range(1, ${ROWS + 1})`);
    await connection.run(`COPY shop_orders TO '${join(dir, 'shop_orders.parquet').replaceAll("'", "''")}' (FORMAT parquet)`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return { kind: 'files', dialect: 'duckdb', label: 'DuckDB', fence: 'duckdb', url: `file://${dir}`, table: 'main.shop_orders', close: async () => rmSync(dir, { recursive: true, force: true }) };
}

const MYSQL_DATABASE = 'sluice_kinds';

export async function mysqlSource(serverUrl: string): Promise<KindSource> {
  const admin = await mysql.createConnection({ uri: serverUrl, multipleStatements: false });
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${MYSQL_DATABASE}`);
    await admin.query(`CREATE DATABASE ${MYSQL_DATABASE} CHARACTER SET utf8mb4`);
    await admin.query(`CREATE TABLE ${MYSQL_DATABASE}.shop_orders (id INT PRIMARY KEY, region VARCHAR(16) NOT NULL, total DECIMAL(10,2) NOT NULL, created_at DATETIME NOT NULL)`);
    for (let i = 0; i < SHOP.length; i += 250) {
      const batch = SHOP.slice(i, i + 250).map((r) => [r.id, r.region, (r.totalCents / 100).toFixed(2), r.createdAt]);
      await admin.query(`INSERT INTO ${MYSQL_DATABASE}.shop_orders VALUES ?`, [batch]);
    }
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${MYSQL_DATABASE}`;
  return {
    kind: 'mysql',
    dialect: 'mariadb',
    label: 'MariaDB',
    fence: 'mysql',
    url: url.toString(),
    table: `${MYSQL_DATABASE}.shop_orders`,
    async close() {
      const cleanup = await mysql.createConnection({ uri: serverUrl });
      await cleanup.query(`DROP DATABASE IF EXISTS ${MYSQL_DATABASE}`).finally(() => cleanup.end());
    },
  };
}
