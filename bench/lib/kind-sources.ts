/**
 * The kinds bench's sources: the same 1M rows × 6 columns (id, amount,
 * label, created_at, flag, score, as bench.rows_5m has them) in MariaDB
 * (database `bench`, table rows_1m), in a SQLite file and in a folder
 * holding one Parquet file, each built once and kept under
 * node_modules/.cache so later runs start at once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';

export const KIND_ROWS = 1_000_000;
// From the working directory (the project's root, as npm runs the bench and its children), not this file: children run a compiled copy elsewhere.
const CACHE = join(process.cwd(), 'node_modules', '.cache', 'sluice-bench-kinds');
export const SQLITE_FILE = join(CACHE, 'rows_1m.db');
export const FILES_DIR = join(CACHE, 'folder');
export const PARQUET_FILE = join(FILES_DIR, 'rows_1m.parquet');
export const MARIADB_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/bench';

/** The bench's MariaDB client arguments for the command-line baseline and the set-up (root, no password, on loopback). */
export const MARIADB_ARGS = ['-h', '127.0.0.1', '-P', '3306', '-u', 'root'];

function mariadb(sql: string, database?: string): string {
  return execFileSync('mariadb', [...MARIADB_ARGS, ...(database ? [database] : []), '-N', '-B', '-e', sql], { encoding: 'utf8' }).trim();
}

function ensureMariadb(log: (line: string) => void): void {
  mariadb('CREATE DATABASE IF NOT EXISTS bench');
  const count = mariadb("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'bench' AND table_name = 'rows_1m'");
  if (count === '1' && mariadb('SELECT MAX(id) FROM rows_1m', 'bench') === String(KIND_ROWS)) return;
  log('kinds: creating bench.rows_1m in MariaDB (once)...');
  mariadb('DROP TABLE IF EXISTS rows_1m', 'bench');
  mariadb(
    `CREATE TABLE rows_1m (id BIGINT PRIMARY KEY, amount DECIMAL(12,2), label VARCHAR(64), created_at TIMESTAMP(6), flag BOOLEAN, score DOUBLE)`,
    'bench',
  );
  // MariaDB's SEQUENCE engine names seq_1_to_N tables of its own.
  mariadb(
    `INSERT INTO rows_1m SELECT seq, ROUND((seq MOD 100000) / 7, 2), CONCAT('name-', MD5(seq)), TIMESTAMP('2024-01-01') + INTERVAL seq SECOND, seq MOD 3 = 0, seq * 1.000001 FROM seq_1_to_${KIND_ROWS}`,
    'bench',
  );
}

function ensureSqlite(log: (line: string) => void): void {
  if (existsSync(SQLITE_FILE)) return;
  log('kinds: creating the SQLite file (once)...');
  mkdirSync(CACHE, { recursive: true });
  const building = `${SQLITE_FILE}.building`;
  rmSync(building, { force: true });
  const db = new Database(building);
  db.exec(`CREATE TABLE rows_1m (id INTEGER PRIMARY KEY, amount NUMERIC(12,2), label TEXT, created_at TEXT, flag BOOLEAN, score REAL);
    WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${KIND_ROWS})
    INSERT INTO rows_1m SELECT n, round((n % 100000) / 7.0, 2), 'name-' || hex(randomblob(16)), strftime('%Y-%m-%d %H:%M:%f', '2024-01-01', '+' || n || ' seconds'), n % 3 = 0, n * 1.000001 FROM g;`);
  db.close();
  renameSync(building, SQLITE_FILE);
}

async function ensureParquet(log: (line: string) => void): Promise<void> {
  if (existsSync(PARQUET_FILE)) return;
  log('kinds: writing the Parquet file (once)...');
  mkdirSync(FILES_DIR, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`COPY (SELECT range::BIGINT AS id, round((range % 100000) / 7, 2)::DECIMAL(12,2) AS amount, 'name-' || md5(range::VARCHAR) AS label,
        TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(range) AS created_at, range % 3 = 0 AS flag, (range * 1.000001)::DOUBLE AS score
      FROM range(1, ${KIND_ROWS + 1})) TO '${PARQUET_FILE.replaceAll("'", "''")}' (FORMAT parquet)`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Builds the sources of the datasources named (by id in KIND_DATASOURCES). */
export async function ensureKindSources(log: (line: string) => void, ids: string[]): Promise<void> {
  if (ids.includes('maria')) ensureMariadb(log);
  if (ids.includes('lite')) ensureSqlite(log);
  if (ids.includes('folder')) await ensureParquet(log);
}

/** The datasources a bench server reads, by kind. */
export const KIND_DATASOURCES = [
  { id: 'maria', url: MARIADB_URL },
  { id: 'lite', url: `sqlite://${SQLITE_FILE}` },
  { id: 'folder', url: `file://${FILES_DIR}` },
];

/** The export's statement: the first `rows` rows (all of them at 1M), the same text on every kind. */
export function kindSql(rows: number): string {
  return `SELECT * FROM rows_1m${rows < KIND_ROWS ? ` WHERE id <= ${rows}` : ''}`;
}
