/**
 * A files export of the types whose CSV text is spelled out in SQL goes
 * from the folder's engine to Parquet as DuckDB chunks, never as text
 * (chunk-row-source.ts, stream-table-to-parts.ts). Its caps still fall on
 * exact rows, counted in the bytes of the CSV the rows would take, also
 * inside a DuckDB chunk (2,048 rows) and with multi-byte text, quotes,
 * commas, line breaks, NULLs, BC and infinite dates and decimals; the
 * lengths are checked against the JavaScript records (value-text.ts with
 * csvRecord) row by row. Its parts hold what the CSV path's parts hold:
 * the same Parquet columns and types, and the same values read back.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteLiteral } from '../../../src/columns/column-plan.ts';
import { rowJsonExpression } from '../../../src/columns/value-encoding.ts';
import { openChunkSource } from '../../../src/datasources/files/export/chunk-source.ts';
import { planDuckColumns } from '../../../src/datasources/files/export/column-types.ts';
import { valueText } from '../../../src/datasources/files/export/value-text.ts';
import { isChunkRowSource, type ChunkRowSource } from '../../../src/worker/export/chunk-row-source.ts';
import { csvRecord } from '../../../src/worker/export/csv-record.ts';
import type { RowSource } from '../../../src/worker/export/row-source.ts';
import { streamTableToParts } from '../../../src/worker/export/stream-table-to-parts.ts';
import { streamToParts } from '../../../src/worker/export/stream-to-parts.ts';
import type { ExportHooks, ExportRequest, ExportResult, Limits, PreviewData } from '../../../src/worker/export-types.ts';
import { ContractExports } from '../contract-export.ts';
import { TempFolder } from './temp-folder.ts';

const ROWS = 5000;
const SQL = 'SELECT * FROM mixed ORDER BY id';
const DATA = `SELECT range AS id,
  CASE range % 7 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'ünï ✓ 👩‍💻 ' || range WHEN 3 THEN 'say "hi", ' || range
    WHEN 4 THEN 'line' || chr(10) || 'break' || chr(13) ELSE 'plain-' || range END AS txt,
  CASE WHEN range % 11 = 0 THEN NULL WHEN range % 13 = 0 THEN DATE '0044-03-15 (BC)' WHEN range % 17 = 0 THEN 'infinity'::DATE
    ELSE DATE '2024-01-01' + CAST(range AS INTEGER) END AS d,
  CASE WHEN range % 5 = 0 THEN NULL ELSE CAST(range / 7 AS DECIMAL(12,2)) - 300 END AS amount,
  TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(range * 37) AS ts,
  range % 3 = 0 AS flag,
  CASE WHEN range % 19 = 0 THEN NULL ELSE range * 1.000001 END AS score,
  CAST(range % 200 - 100 AS TINYINT) AS small
FROM range(${ROWS})`;
const GENEROUS: Limits = { maxRows: 10_000_000, maxBytes: 1 << 30, maxDurationMs: 60_000 };

const folder = new TempFolder();
const exports = new ContractExports();
let under: ReturnType<TempFolder['open']>;
let plain: { instance: DuckDBInstance; connection: DuckDBConnection };
/** `ends[k]`: the CSV bytes of the first k rows, from the JavaScript records. */
let ends: number[];
let work: string;
let runs = 0;

beforeAll(async () => {
  await exports.open();
  await folder.write('mixed.parquet', DATA);
  under = folder.open();
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  plain = { instance, connection: await instance.connect() };
  await plain.connection.run("SET TimeZone = 'UTC'");
  await plain.connection.run(`CREATE VIEW mixed AS SELECT * FROM read_parquet(${quoteLiteral(folder.path('mixed.parquet'))})`);
  const prepared = await plain.connection.prepare(SQL);
  const texts = Array.from({ length: prepared.columnCount }, (_, i) => valueText(prepared.columnType(i), prepared.columnName(i)));
  const rows = (await plain.connection.runAndReadAll(SQL)).getRows();
  ends = [0];
  for (const row of rows) ends.push(ends.at(-1)! + Buffer.byteLength(csvRecord(row.map((v, c) => (v === null ? null : texts[c]!(v))))));
  work = join(folder.root, 'exports');
  mkdirSync(work);
});

afterAll(async () => {
  exports.close();
  plain.connection.closeSync();
  plain.instance.closeSync();
  await folder.close();
});

function request(limits: Partial<Limits> = {}): ExportRequest {
  const stagingDir = join(work, `export-${++runs}`);
  mkdirSync(stagingDir, { recursive: true });
  return { sql: SQL, kind: 'select', params: [], previewRows: 5, previewBytes: 1 << 20, previewCellChars: 10_000, materialize: 'always', limits: { ...GENEROUS, ...limits }, stagingDir };
}

function hooks(previews: PreviewData[] = []): ExportHooks {
  return { onPreview: (p) => previews.push(p), onProgress: () => undefined, onPart: () => undefined, onStopper: () => undefined };
}

/** The ids of an export's parts, in artifact order. */
async function idsOf(result: ExportResult, stagingDir: string): Promise<number[]> {
  const files = (result.parts ?? []).map((p) => quoteLiteral(join(stagingDir, p.name)));
  const reader = await plain.connection.runAndReadAll(`SELECT id FROM read_parquet([${files.join(', ')}], filename = true, file_row_number = true) ORDER BY filename, file_row_number`);
  return reader.getRowsJS().map((r) => Number(r[0]));
}

const firstIds = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('a files export of SQL-formatted types', () => {
  it('hands DuckDB chunks to the core, and CSV when a column is formatted in JavaScript', async () => {
    const shapes: string[] = [];
    const consume = (kind: string) => async (_columns: unknown, source: RowSource | ChunkRowSource) => {
      shapes.push(`${kind}: ${isChunkRowSource(source) ? 'chunks' : 'csv'}`);
      for await (const chunk of source as AsyncIterable<unknown>) void chunk;
      return {} as ExportResult;
    };
    await under.exports.export(under.url, request(), consume('mixed'));
    await under.exports.export(under.url, { ...request(), sql: 'SELECT CAST(id AS FLOAT) AS f FROM mixed' }, consume('float'));
    expect(shapes).toEqual(['mixed: chunks', 'float: csv']);
  });

  it('counts the CSV bytes of every row as the JavaScript records take them', async () => {
    const { result } = await exports.run(under, SQL);
    expect(result).toMatchObject({ rows: ROWS, bytes: ends[ROWS], cappedBy: null });
  });

  it.each([
    ['inside the second chunk', 3000],
    ['at the end of the first chunk', 2048],
    ['at one row', 1],
  ])('keeps exactly the rows a byte cap allows, %s', async (_where, rows) => {
    for (const [maxBytes, kept] of [
      [ends[rows]!, rows],
      [ends[rows]! - 1, rows - 1],
    ] as const) {
      const run = await exports.run(under, SQL, { limits: { maxBytes } });
      expect(run.result).toMatchObject({ rows: kept, bytes: ends[kept], cappedBy: 'maxBytes' });
      expect(run.rows.map((r) => Number(r[0]))).toEqual(firstIds(kept));
    }
  });

  it('is not capped by a byte cap of exactly its bytes', async () => {
    const run = await exports.run(under, SQL, { limits: { maxBytes: ends[ROWS]! } });
    expect(run.result).toMatchObject({ rows: ROWS, cappedBy: null });
  });

  it.each([3001, 2048, 1])('keeps exactly %i rows under that row cap, with their bytes', async (maxRows) => {
    const run = await exports.run(under, SQL, { limits: { maxRows } });
    expect(run.result).toMatchObject({ rows: maxRows, bytes: ends[maxRows], cappedBy: 'maxRows' });
    expect(run.rows.map((r) => Number(r[0]))).toEqual(firstIds(maxRows));
  });

  it('is not capped by a row cap of exactly its rows', async () => {
    const run = await exports.run(under, SQL, { limits: { maxRows: ROWS } });
    expect(run.result).toMatchObject({ rows: ROWS, bytes: ends[ROWS], cappedBy: null });
  });

  it('ends parts at the first row that brings them to the part size, inside a chunk, never before the preview rows', async () => {
    const partBytes = 40_000;
    const req = request();
    const result = await under.exports.export(under.url, req, (columns, source) =>
      streamTableToParts(source as ChunkRowSource, exports.duck, req, columns, hooks(), partBytes, exports.copier),
    );
    const parts = result.parts!;
    expect(parts.length).toBeGreaterThan(5);
    let start = 0;
    for (const [i, part] of parts.entries()) {
      const end = start + part.rows;
      const bytes = ends[end]! - ends[start]!;
      if (i < parts.length - 1) {
        expect(bytes).toBeGreaterThanOrEqual(partBytes);
        expect(bytes - (ends[end]! - ends[end - 1]!)).toBeLessThan(partBytes);
      }
      start = end;
    }
    expect(start).toBe(ROWS);
    expect(await idsOf(result, req.stagingDir)).toEqual(firstIds(ROWS));
    expect(readdirSync(req.stagingDir).sort()).toEqual(parts.map((p) => p.name).sort());
  });

  it('fails only the artifact when the disk fills while a part is written, and leaves no partial file', async (context) => {
    const { execFileSync } = await import('node:child_process');
    const req = request();
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', req.stagingDir], { stdio: 'ignore' });
    } catch {
      context.skip('mounting a small tmpfs needs root (CI runs as root)');
      return;
    }
    try {
      const previews: PreviewData[] = [];
      const result = await under.exports.export(under.url, req, (columns, source) => streamToParts(source, exports.duck, req, columns, hooks(previews)));
      expect(result).toMatchObject({ rows: ROWS, parts: null, storageFailure: expect.stringContaining('disk space') });
      expect(previews[0]!.rows).toHaveLength(5);
      expect(readdirSync(req.stagingDir)).toEqual([]);
    } finally {
      execFileSync('umount', [req.stagingDir]);
    }
  });

  it('gives the preview the CSV path gives, its cell and byte bounds included', async () => {
    const previews: PreviewData[] = [];
    const bounded = (): ExportRequest => ({ ...request(), previewRows: 40, previewBytes: 1500, previewCellChars: 4 });
    const direct = bounded();
    await under.exports.export(under.url, direct, (columns, source) => streamToParts(source, exports.duck, direct, columns, hooks(previews), exports.copier));
    const csv = bounded();
    const prepared = await plain.connection.prepare(SQL);
    const columns = Array.from({ length: prepared.columnCount }, (_, i) => ({ name: prepared.columnName(i), type: prepared.columnType(i) }));
    const source = openChunkSource({ connection: plain.connection, prepared, columns, rowLimit: ROWS + 1, onEnd: () => undefined });
    await streamToParts(source, exports.duck, csv, planDuckColumns(columns), hooks(previews));
    expect(previews[0]!.bounded).toBe(true);
    expect(previews[0]!.cutCells.length).toBeGreaterThan(0);
    expect(previews[0]).toEqual(previews[1]);
  });

  it('writes the Parquet columns, types and values the CSV path writes for the same rows', async () => {
    const direct = request();
    const previews: PreviewData[] = [];
    const directResult = await under.exports.export(under.url, direct, (columns, source) => streamToParts(source, exports.duck, direct, columns, hooks(previews)));
    // The CSV path: the same rows formatted value by value (chunk-source.ts), through the core's CSV part writer.
    const csv = request();
    const prepared = await plain.connection.prepare(SQL);
    const columns = Array.from({ length: prepared.columnCount }, (_, i) => ({ name: prepared.columnName(i), type: prepared.columnType(i) }));
    const source = openChunkSource({ connection: plain.connection, prepared, columns, rowLimit: ROWS + 1, onEnd: () => undefined });
    const csvResult = await streamToParts(source, exports.duck, csv, planDuckColumns(columns), hooks(previews));
    expect(directResult).toMatchObject({ rows: csvResult.rows, bytes: csvResult.bytes, cappedBy: null });
    expect(previews[0]).toEqual(previews[1]);
    const fileOf = (req: ExportRequest, result: ExportResult) => quoteLiteral(join(req.stagingDir, result.parts![0]!.name));
    const schema = async (file: string) =>
      (await plain.connection.runAndReadAll(`SELECT name, type, converted_type, scale, precision, logical_type FROM parquet_schema(${file})`)).getRowsJS();
    const described = async (file: string) => (await plain.connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${file})`)).getRowsJS();
    const page = async (file: string) =>
      (await plain.connection.runAndReadAll(`SELECT ${rowJsonExpression(directResult.columns)} FROM read_parquet(${file}) LIMIT 2000 OFFSET 1500`)).getRowsJS();
    const [a, b] = [fileOf(direct, directResult), fileOf(csv, csvResult)];
    expect(await schema(a)).toEqual(await schema(b));
    expect(await described(a)).toEqual(await described(b));
    expect(await page(a)).toEqual(await page(b));
    // Every value as DuckDB reads it, the infinite dates included.
    const all = async (file: string) => (await plain.connection.runAndReadAll(`SELECT * FROM read_parquet(${file})`)).getRows().map((r) => r.map(String));
    expect(await all(a)).toEqual(await all(b));
  });
});
