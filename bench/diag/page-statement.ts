/**
 * One page's statement in DuckDB on one connection, without HTTP or workers:
 * what Sluice runs for a plain 100-row page (row ranges of one part, JSON
 * text per row) against a bare SELECT * LIMIT of the same part, the cost
 * of turning the answer into JavaScript rows, and a page against a 1024-row
 * read-ahead block. Parts are made here (10 × 200k
 * rows, 30720-row groups, as exports write them).
 *
 *   npx tsx bench/diag/page-statement.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { buildReadStatement } from '../../src/artifacts/read-sql.ts';
import { quoteLiteral } from '../../src/columns/column-plan.ts';
import { plannedColumns } from '../lib/describe.ts';

const SQL = 'select g::int8 as id, md5(g::text) as h, (g % 1000)::int4 as score, now()::timestamptz as at from generate_series(1, 10) g';
const dir = mkdtempSync(join(tmpdir(), 'page-statement-'));
const threads = process.env.THREADS ?? '1';
const duck = await (await DuckDBInstance.create(':memory:', { threads })).connect();
try {
  const columns = await plannedColumns(SQL);
  const parts: { path: string; rows: number }[] = [];
  for (let i = 0; i < 10; i++) {
    const path = join(dir, `part-${String(i).padStart(5, '0')}.parquet`);
    const select = columns.map((c) => `${['(g + ' + i * 200_000 + ')::int8', 'md5(g::text)', '(g % 1000)::int4', 'now()::timestamptz'][columns.indexOf(c)]} AS "${c.storageName}"`).join(', ');
    await duck.run(`COPY (SELECT ${select} FROM generate_series(1, 200000) t(g)) TO ${quoteLiteral(path)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 30000)`);
    parts.push({ path, rows: 200_000 });
  }
  async function loop(name: string, run: (i: number) => Promise<unknown>) {
    const end = performance.now() + 3000;
    let n = 0;
    while (performance.now() < end) await run(n++);
    console.log(`${name.padEnd(60)} ${(n / 3).toFixed(0)}/s`);
  }
  const offset = (i: number) => (i * 7919 * 100) % 1_999_900;
  await loop('bare: SELECT * FROM part LIMIT 100 (one part)', () => duck.runAndReadAll(`SELECT * FROM read_parquet(${quoteLiteral(parts[3]!.path)}) LIMIT 100`));
  await loop('bare: SELECT * FROM part LIMIT 100 OFFSET k (one part)', (i) => duck.runAndReadAll(`SELECT * FROM read_parquet(${quoteLiteral(parts[3]!.path)}) LIMIT 100 OFFSET ${offset(i) % 199_900}`));
  await loop("Sluice's statement, distinct pages, rows left as text", async (i) => {
    const s = buildReadStatement(columns, parts, { limit: 100, offset: offset(i) });
    return duck.runAndReadAll(s.sql, s.params);
  });
  await loop("Sluice's statement, distinct pages, getRowsJS + JSON.parse", async (i) => {
    const s = buildReadStatement(columns, parts, { limit: 100, offset: offset(i) });
    return (await duck.runAndReadAll(s.sql, s.params)).getRowsJS().map((r) => JSON.parse(String(r[0])) as unknown[]);
  });
  await loop('row ranges, SELECT * (no JSON), distinct pages', (i) => {
    const at = offset(i);
    const part = parts[Math.floor(at / 200_000)]!;
    const from = at % 200_000;
    return duck.runAndReadAll(`SELECT * FROM read_parquet(${quoteLiteral(part.path)}, file_row_number = true) WHERE file_row_number >= ${from} AND file_row_number < ${from + 101} ORDER BY file_row_number`);
  });
  await loop('row ranges, SELECT id only, distinct pages', (i) => {
    const at = offset(i);
    const part = parts[Math.floor(at / 200_000)]!;
    const from = at % 200_000;
    return duck.runAndReadAll(`SELECT id FROM read_parquet(${quoteLiteral(part.path)}, file_row_number = true) WHERE file_row_number >= ${from} AND file_row_number < ${from + 101}`);
  });
  for (const rows of [101, 1024]) {
    await loop(`row ranges, JSON text, ${rows} rows (a page; a read-ahead block)`, async (i) => {
      const at = offset(i) % 198_000;
      const s = buildReadStatement(columns, [parts[3]!], { limit: rows - 1, offset: at });
      return (await duck.runAndReadAll(s.sql, s.params)).getRowsJS().map((r) => JSON.parse(String(r[0])) as unknown[]);
    });
  }
  await loop('SELECT 1', () => duck.runAndReadAll('SELECT 1'));
} finally {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
}
