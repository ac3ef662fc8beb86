/**
 * What a row group read whole costs against one page of it, in DuckDB on one
 * single-threaded connection (as the read worker's plain pages run), each
 * way a window can be kept: the page's statement (99 rows and the one past
 * them, JSON text per row); the whole 30,720-row window through the same
 * statement, joined into one text; as a materialized result, streamed
 * chunks, or a table (CREATE TABLE AS), and 100 rows from that table with
 * and without DuckDB's JSON, prepared or not; and 100 rows from a window
 * RowWindows keeps (row-windows.ts). Parts are made here as exports write
 * them (7 columns like the pages bench, 10 × 200k rows, ROW_GROUP_SIZE
 * 30000). CPU time per operation, medians of 5 interleaved rounds
 * (bench/runs/2026-12-02-pages.md).
 *
 *   npx tsx bench/diag/page-window.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { buildReadStatement } from '../../src/artifacts/read-sql.ts';
import { quoteLiteral } from '../../src/columns/column-plan.ts';
import { cpuPerRun, writePageParts } from '../lib/page-parts.ts';

const WINDOW = 30_720;
const dir = mkdtempSync(join(tmpdir(), 'page-window-'));
const duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
try {
  const { columns, parts } = await writePageParts(duck, dir);
  const cpuPer = cpuPerRun;
  const at = (i: number) => ((i * 7919) % 6) * WINDOW;
  const page = (i: number) => {
    const part = parts[i % 10]!;
    const s = buildReadStatement(columns, [part], { limit: 99, offset: at(i) + ((i * 131) % 30_000) });
    return duck.runAndReadAll(s.sql, s.params).then((r) => r.getRowsJS().map((row) => JSON.parse(String(row[0])) as unknown[]));
  };
  const window = async (i: number) => {
    const part = parts[i % 10]!;
    const s = buildReadStatement(columns, [part], { limit: WINDOW - 1, offset: at(i) });
    const lines = (await duck.runAndReadAll(s.sql, s.params)).getRowsJS().map((row) => String(row[0]));
    const ends = new Int32Array(lines.length);
    let end = -1;
    for (let k = 0; k < lines.length; k++) ends[k] = end += lines[k]!.length + 1;
    return { text: lines.join(','), ends };
  };
  const raw = columns.map((c) => `"${c.storageName}"`).join(', ');
  let made = 0;
  const fill = async (i: number) => {
    const part = parts[i % 10]!;
    const name = `w${made++}`;
    await duck.run(`CREATE TEMP TABLE ${name} AS SELECT file_row_number AS n, ${raw} FROM read_parquet(${quoteLiteral(part.path)}, file_row_number = true) WHERE file_row_number >= ${at(i)} AND file_row_number < ${at(i) + WINDOW} ORDER BY n`);
    return name;
  };
  const { rowJsonExpression } = await import('../../src/columns/value-encoding.ts');
  const tables: string[] = [];
  for (let i = 0; i < 10; i++) tables.push(await fill(i));
  const fromTable = async (i: number) => {
    const from = at(i) + ((i * 131) % 30_000);
    const r = await duck.runAndReadAll(`SELECT ${rowJsonExpression(columns)} FROM ${tables[i % 10]} WHERE n >= ${from} AND n < ${from + 100} ORDER BY n`);
    return r.getRowsJS().map((row) => JSON.parse(String(row[0])) as unknown[]);
  };
  const prepared = await Promise.all(tables.map((t) => duck.prepare(`SELECT ${rowJsonExpression(columns)} FROM ${t} WHERE n >= $1 AND n < $2 ORDER BY n`)));
  const fromPrepared = async (i: number) => {
    const from = at(i) + ((i * 131) % 30_000);
    const statement = prepared[i % 10]!;
    statement.bindBigInt(1, BigInt(from));
    statement.bindBigInt(2, BigInt(from + 100));
    const r = await statement.runAndReadAll();
    return r.getRowsJS().map((row) => JSON.parse(String(row[0])) as unknown[]);
  };
  const rawFromTable = async (i: number) => {
    const from = at(i) + ((i * 131) % 30_000);
    return (await duck.runAndReadAll(`SELECT * FROM ${tables[i % 10]} WHERE n >= ${from} AND n < ${from + 100} ORDER BY n`)).getRowsJS();
  };
  const { windowSql } = await import('../../src/artifacts/read-sql.ts');
  const { RowWindows } = await import('../../src/worker/row-windows.ts');
  const materialize = async (i: number) => {
    const part = parts[i % 10]!;
    return duck.runAndReadAll(windowSql(columns, part.path, at(i), at(i) + WINDOW));
  };
  const runOnly = async (i: number) => duck.run(windowSql(columns, parts[i % 10]!.path, at(i), at(i) + WINDOW));
  const streamed = async (i: number) => {
    const result = await duck.stream(windowSql(columns, parts[i % 10]!.path, at(i), at(i) + WINDOW));
    const chunks = [];
    for (let c = await result.fetchChunk(); c !== null && c.rowCount > 0; c = await result.fetchChunk()) chunks.push(c);
    return chunks;
  };
  const kept = new RowWindows();
  const task = (i: number, from: number) => ({ type: 'read-window' as const, key: `k${i % 10}`, sql: windowSql(columns, parts[i % 10]!.path, at(i % 10), at(i % 10) + WINDOW), rowsSql: windowSql(columns, parts[i % 10]!.path, at(i % 10) + from, at(i % 10) + from + 100), storages: columns.map((c) => c.storage), from, to: from + 100 });
  for (let i = 0; i < 10; i++) await kept.rows(duck, task(i, 0));
  const cutKept = (i: number) => kept.rows(duck, task(i, (i * 131) % 30_000));
  const fillAndDrop = async (i: number) => duck.run(`DROP TABLE ${await fill(i)}`);
  const rounds: Record<string, number>[] = [];
  for (let r = 0; r < 5; r++) rounds.push({ page: await cpuPer(60, page), window: await cpuPer(10, window), fill: await cpuPer(20, fillAndDrop), fromTable: await cpuPer(200, fromTable), fromPrepared: await cpuPer(200, fromPrepared), rawFromTable: await cpuPer(200, rawFromTable), one: await cpuPer(200, () => duck.runAndReadAll('SELECT 1')), materialize: await cpuPer(10, materialize), runOnly: await cpuPer(10, runOnly), streamed: await cpuPer(10, streamed), cutKept: await cpuPer(300, cutKept) });
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const sample = await window(0);
  const m = (k: string) => median(rounds.map((x) => x[k]!));
  const p = m('page');
  const w = m('window');
  console.log(`page (99 rows): ${p.toFixed(2)} ms CPU; window as text (${WINDOW} rows, ${(sample.text.length / 1e6).toFixed(2)} M chars): ${w.toFixed(2)} ms CPU (${(w / p).toFixed(1)}× a page)`);
  console.log(`window materialized: ${m('materialize').toFixed(2)} ms CPU (${(m('materialize') / p).toFixed(2)}× a page); 100 rows cut from a kept window ${m('cutKept').toFixed(2)} ms CPU`);
  console.log(`run() only ${m('runOnly').toFixed(2)} ms; streamed chunks ${m('streamed').toFixed(2)} ms`);
  console.log(`prepared ${m('fromPrepared').toFixed(2)} ms; raw columns ${m('rawFromTable').toFixed(2)} ms; SELECT 1 ${m('one').toFixed(2)} ms`);
  console.log(`window as a DuckDB table: fill ${m('fill').toFixed(2)} ms CPU (${(m('fill') / p).toFixed(2)}× a page); a page from it ${m('fromTable').toFixed(2)} ms CPU (${(m('fromTable') / p).toFixed(2)}× a page)`);
} finally {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
}
