/**
 * Why a sorted top-100 read is slow: the statement Sluice builds
 * (src/artifacts/read-sql.ts) against variants of it, all in one DuckDB
 * with the read workers' settings (threads=2, memory_limit=512MB), over the
 * Parquet parts of an artifact made here. Medians of 3 interleaved runs;
 * EXPLAIN ANALYZE of Sluice's statement at the end shows the operator that
 * takes the time.
 *
 *   npx tsx bench/diag/sort-shape.ts [rows=10000000] [column=score]
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { buildReadStatement } from '../../src/artifacts/read-sql.ts';
import { rowJsonExpression } from '../../src/columns/value-encoding.ts';
import { quoteIdent, quoteLiteral } from '../../src/columns/column-plan.ts';
import { plannedColumns } from '../lib/describe.ts';
import { runExport, startBenchSluice, submitAndWait } from '../lib/sluice.ts';
import { median } from '../lib/stats.ts';
import { interleave } from '../lib/timing.ts';

const rows = Number(process.argv[2] ?? 10_000_000);
const column = process.argv[3] ?? 'score';
const source = `SELECT * FROM bench.rows_10m${rows < 10_000_000 ? ` WHERE id <= ${rows}` : ''}`;

const s = await startBenchSluice();
try {
  await submitAndWait(s, { sql: 'SELECT 1', materialize: 'never' });
  const made = await runExport(s, source);
  console.log(`artifact of ${made.rows} rows in ${(made.totalMs / 1000).toFixed(1)} s`);
  const objects = join(s.dataDir, 'artifacts', 'objects');
  const files = readdirSync(objects).flatMap((a) => readdirSync(join(objects, a)).flatMap((h) => readdirSync(join(objects, a, h)).map((f) => join(objects, a, h, f)))).filter((f) => f.endsWith('.parquet')).sort();
  const columns = await plannedColumns(source);
  const instance = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '512MB' });
  const duck = await instance.connect();
  await duck.run("SET TimeZone = 'UTC'");
  const parts = [];
  for (const path of files) parts.push({ path, rows: Number((await duck.runAndReadAll(`SELECT count(*) FROM read_parquet(${quoteLiteral(path)})`)).getRowsJS()[0]![0]) });
  const sluiceSql = buildReadStatement(columns, parts, { limit: 100, offset: 0, sort: [{ column, direction: 'desc' }] } as never).sql;
  const list = `[${files.map(quoteLiteral).join(', ')}]`;
  const withRowIds = `read_parquet(${list}, filename = true, file_row_number = true)`;
  const json = rowJsonExpression(columns);
  const c = quoteIdent(column);
  const keys = `${c} DESC NULLS LAST, filename, file_row_number`;
  const variants: Record<string, string> = {
    "Sluice's statement (JSON per row, then top-N)": sluiceSql,
    'DuckDB direct: SELECT * ORDER BY col DESC LIMIT 100': `SELECT * FROM read_parquet(${list}) ORDER BY ${c} DESC LIMIT 100`,
    'same keys as Sluice, SELECT * (no JSON)': `SELECT * FROM ${withRowIds} ORDER BY ${keys} LIMIT 101`,
    'JSON per row, only the column as key': `SELECT ${json} FROM ${withRowIds} ORDER BY ${c} DESC NULLS LAST LIMIT 101`,
    'top-N in a subquery, JSON for its 101 rows only': `SELECT ${json} FROM (SELECT * FROM ${withRowIds} ORDER BY ${keys} LIMIT 101) ORDER BY ${keys}`,
  };
  const samples = await interleave(
    Object.fromEntries(Object.entries(variants).map(([name, q]) => [name, async () => (await duck.runAndReadAll(q)).getRowsJS()])),
    3,
    { warmup: false },
  );
  const base = median(samples['DuckDB direct: SELECT * ORDER BY col DESC LIMIT 100']!);
  for (const [name, values] of Object.entries(samples)) {
    console.log(`${name.padEnd(52)} ${median(values).toFixed(0).padStart(6)} ms  ${(median(values) / base).toFixed(2).padStart(6)}× direct`);
  }
  const plan = String((await duck.runAndReadAll(`EXPLAIN ANALYZE ${sluiceSql}`)).getRowsJS()[0]![1]);
  const timings = [...plan.matchAll(/│\s+([A-Z_]+)\s+│[\s\S]*?│\s+([\d,]+ rows)\s+│\s*\n│\s+([\d.]+s)\s+│/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  console.log(`EXPLAIN ANALYZE of Sluice's statement (operator, rows out, time):\n  ${timings.join('\n  ') || plan}`);
  duck.closeSync();
} finally {
  await s.stop();
}
