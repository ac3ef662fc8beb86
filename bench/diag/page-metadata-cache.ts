/**
 * Plain 99-row pages never read before, in DuckDB alone: Sluice's statement
 * over 7-column parts (10 × 200k rows, 30000-row groups, as exports write
 * them) with DuckDB's Parquet metadata cache off (the default) and on, in two
 * instances, rounds interleaved. Shows what keeping each part's footer
 * decoded across statements saves a page. Besides pages/s it reports the
 * process's CPU time per page (every DuckDB thread counted), which a busy
 * machine disturbs far less than the wall clock.
 *
 *   npx tsx bench/diag/page-metadata-cache.ts [rounds=3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { buildReadStatement } from '../../src/artifacts/read-sql.ts';
import { quoteLiteral } from '../../src/columns/column-plan.ts';
import { plannedColumns } from '../lib/describe.ts';

const SQL =
  "select g::int8 as id, md5(g::text) as h, (g % 1000)::int4 as score, now()::timestamptz as at, (g * 0.5)::float8 as x, (g % 7 = 0) as flag, ('name-' || (g % 5000))::text as label from generate_series(1, 10) g";
/** The columns' values for row number `v` (an SQL expression), as in SQL above. */
const expressions = (v: string) => [`${v}::int8`, `md5(${v}::text)`, `(${v} % 1000)::int4`, 'now()::timestamptz', `(${v} * 0.5)::float8`, `(${v} % 7 = 0)`, `('name-' || (${v} % 5000))::text`];
const PARTS = 10;
const PART_ROWS = 200_000;
const rounds = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'page-metadata-cache-'));

async function connect(cache: boolean): Promise<DuckDBConnection> {
  const duck = await (await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '512MB' })).connect();
  await duck.run("SET TimeZone = 'UTC'");
  if (cache) await duck.run('SET parquet_metadata_cache = true');
  return duck;
}

try {
  const columns = await plannedColumns(SQL);
  const maker = await connect(false);
  const parts: { path: string; rows: number }[] = [];
  for (let i = 0; i < PARTS; i++) {
    const path = join(dir, `part-${String(i).padStart(5, '0')}.parquet`);
    const values = expressions(`(g + ${i * PART_ROWS})`);
    const select = columns.map((c, k) => `${values[k]!} AS "${c.storageName}"`).join(', ');
    await maker.run(`COPY (SELECT ${select} FROM generate_series(1, ${PART_ROWS}) t(g)) TO ${quoteLiteral(path)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 30000)`);
    parts.push({ path, rows: PART_ROWS });
  }
  const off = await connect(false);
  const on = await connect(true);
  let n = 0;
  const offset = () => ((n++ * 7919 * 1000) % (PARTS * PART_ROWS - 1000)) + 1000;
  async function loop(duck: DuckDBConnection): Promise<{ rate: number; cpuMs: number }> {
    const end = performance.now() + 3000;
    const cpu = process.cpuUsage();
    let pages = 0;
    while (performance.now() < end) {
      const s = buildReadStatement(columns, parts, { limit: 99, offset: offset() });
      (await duck.runAndReadAll(s.sql, s.params)).getRowsJS().map((r) => JSON.parse(String(r[0])) as unknown[]);
      pages++;
    }
    const used = process.cpuUsage(cpu);
    return { rate: pages / 3, cpuMs: (used.user + used.system) / 1000 / pages };
  }
  const results = { off: { rate: [] as number[], cpu: [] as number[] }, on: { rate: [] as number[], cpu: [] as number[] } };
  for (let round = 0; round < rounds; round++) {
    for (const [name, duck] of round % 2 === 0 ? ([['off', off], ['on', on]] as const) : ([['on', on], ['off', off]] as const)) {
      const { rate, cpuMs } = await loop(duck);
      results[name].rate.push(rate);
      results[name].cpu.push(cpuMs);
      console.log(`round ${round + 1} metadata cache ${name}: ${rate.toFixed(0)} pages/s, ${cpuMs.toFixed(2)} ms CPU a page`);
    }
  }
  const med = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
  const { off: o, on: c } = results;
  console.log(`median: off ${med(o.rate).toFixed(0)}/s, on ${med(c.rate).toFixed(0)}/s, on ÷ off ${(med(c.rate) / med(o.rate)).toFixed(2)}×`);
  console.log(`median CPU a page: off ${med(o.cpu).toFixed(2)} ms, on ${med(c.cpu).toFixed(2)} ms, off ÷ on ${(med(o.cpu) / med(c.cpu)).toFixed(2)}×`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
