/**
 * The preview's size bounds on multi-megabyte values: SLUICE_PREVIEW_BYTES
 * ends the preview at the last whole row within it, SLUICE_PREVIEW_CELL_CHARS
 * cuts a long value and lists it in preview.cutCells, both say
 * `boundedBy: "previewBytes"`, and under materialize "auto" either makes an
 * artifact that holds every value whole, in page reads and downloads alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { readAll, runQuery } from './query-test-helpers.ts';

const MIB = 1024 * 1024;

/** The bytes the preview takes in the answer, as sent. */
const previewBytes = (preview: unknown) => Buffer.byteLength(JSON.stringify(preview));

describe('with the default bounds (1 MiB, 10000 characters)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('three rows of 3 MB text: cut cells listed, a small answer, and an artifact holding them whole', async () => {
    const r = await runQuery(server, { sql: `select g, repeat('x', 3000000) || g as doc from generate_series(1, 3) g` });
    expect(r.status).toBe(200);
    const data = r.body.data;
    // Three cut cells of 10000 characters, never the 9 MB of the values.
    expect(Buffer.byteLength(JSON.stringify(r.body))).toBeLessThan(40_000);
    expect(data.preview.rows).toEqual([1, 2, 3].map((g) => [g, 'x'.repeat(10_000)]));
    expect(data.preview.cutCells).toEqual([0, 1, 2].map((row) => ({ row, column: 1, chars: 3_000_001 })));
    expect(data.completeness).toEqual({ status: 'INCOMPLETE', returnedRows: 3, totalRows: 3, boundedBy: 'previewBytes', limitSetBy: 'server' });
    // materialize "auto": a cut cell is reason enough for an artifact.
    expect(data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: 3 });
    const id = data.artifact.id as string;

    // A page read (one row per page) and a whole read give every value whole.
    const pages = await readAll(server, id, TOKENS.admin, 1);
    expect(pages.pages).toBe(3);
    expect(pages.rows.map((row) => [row[0], (row[1] as string).length, (row[1] as string).slice(-2)])).toEqual([1, 2, 3].map((g) => [g, 3_000_001, `x${g}`]));
    const one = await server.request(`/api/artifacts/${id}/read`, { body: { limit: 1, columns: ['doc'], sort: [{ column: 'g', direction: 'desc' }] } });
    expect(one.body.data.rows).toEqual([['x'.repeat(3_000_000) + '3']]);
    expect(one.body.data.cutCells).toBeUndefined();

    // Downloads too.
    const jsonl = await fetch(`${server.sluice.url}/api/artifacts/${id}/download?format=jsonl`, { headers: { 'x-token': TOKENS.admin } });
    const lines = (await jsonl.text()).trim().split('\n').map((l) => JSON.parse(l) as unknown[]);
    expect(lines).toEqual(pages.rows);
    const csv = await (await fetch(`${server.sluice.url}/api/artifacts/${id}/download?format=csv`, { headers: { 'x-token': TOKENS.admin } })).text();
    expect(csv.split('\n').filter((l) => l.length > 0).map((l) => l.length)).toEqual([5, 3_000_003, 3_000_003, 3_000_003]);
  }, 240_000);

  it('materialize "never": the cut is said, and nothing is kept', async () => {
    const r = await runQuery(server, { sql: `select repeat('ab', 10001) as doc, 'short' as s`, materialize: 'never' });
    expect(r.body.data.preview.rows).toEqual([['ab'.repeat(5_000), 'short']]);
    expect(r.body.data.preview.cutCells).toEqual([{ row: 0, column: 0, chars: 20_002 }]);
    expect(r.body.data.completeness).toMatchObject({ status: 'INCOMPLETE', returnedRows: 1, totalRows: 1, boundedBy: 'previewBytes', limitSetBy: 'server' });
    expect(r.body.data.artifact).toMatchObject({ decision: 'SKIPPED', reason: 'MATERIALIZE_NEVER' });
  });

  it('a value at the cell bound is whole, and a preview within the bounds is COMPLETE with no artifact', async () => {
    const r = await runQuery(server, { sql: `select repeat('y', 10000) as doc` });
    expect(r.body.data.preview).toEqual({ columns: [{ name: 'doc', type: 'text' }], rows: [['y'.repeat(10_000)]], cutCells: [] });
    expect(r.body.data.completeness).toMatchObject({ status: 'COMPLETE', boundedBy: null });
    expect(r.body.data.artifact).toMatchObject({ decision: 'SKIPPED', reason: 'PREVIEW_COMPLETE' });
  });

  it('values encoded as JSON are measured as the caller meets them: bytea base64, json text, an array its JSON text', async () => {
    const r = await runQuery(server, {
      sql: `select decode(repeat('ab', 9000), 'hex') as bin, ('"' || repeat('j', 12000) || '"')::json as doc, array(select g from generate_series(1, 3000) g) as arr`,
    });
    const data = r.body.data;
    expect(data.artifact.decision).toBe('CREATED');
    const [whole] = (await readAll(server, data.artifact.id)).rows;
    const [bin, doc, arr] = whole as [string, string, number[]];
    // 9000 bytes are 12000 base64 characters; the json value is its own text.
    expect(bin.length).toBe(12_000);
    expect(doc.length).toBe(12_002);
    const arrText = JSON.stringify(arr);
    expect(data.preview.cutCells).toEqual([
      { row: 0, column: 0, chars: 12_000 },
      { row: 0, column: 1, chars: 12_002 },
      { row: 0, column: 2, chars: arrText.length },
    ]);
    // A string keeps its first characters; the array becomes the first characters of its JSON text.
    expect(data.preview.rows).toEqual([[bin.slice(0, 10_000), doc.slice(0, 10_000), arrText.slice(0, 10_000)]]);
  });
});

describe('SLUICE_PREVIEW_BYTES', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Cells as long as 4 MB stay whole here, so only the byte bound cuts.
    server = await startTestServer({ SLUICE_PREVIEW_CELL_CHARS: '4000000' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('three rows of 2 MB: no row fits in 1 MiB, so none is shown, and the artifact holds all three', async () => {
    const r = await runQuery(server, { sql: `select g, repeat('z', 2000000) as doc from generate_series(1, 3) g` });
    expect(r.status).toBe(200);
    // The answer that used to be 6 MB.
    expect(Buffer.byteLength(JSON.stringify(r.body))).toBeLessThan(MIB);
    expect(r.body.data.preview).toEqual({ columns: [{ name: 'g', type: 'int4' }, { name: 'doc', type: 'text' }], rows: [], cutCells: [] });
    expect(r.body.data.completeness).toEqual({ status: 'INCOMPLETE', returnedRows: 0, totalRows: 3, boundedBy: 'previewBytes', limitSetBy: 'server' });
    expect(r.body.data.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: 3 });
    const read = await readAll(server, r.body.data.artifact.id);
    expect(read.rows.map((row) => (row[1] as string).length)).toEqual([2_000_000, 2_000_000, 2_000_000]);
  }, 240_000);

  it('cuts at the last whole row within 1 MiB, counting bytes (é is two)', async () => {
    // Rows of 200000 é: 400 KB of JSON each, so two fit in 1 MiB and the third does not.
    const r = await runQuery(server, { sql: `select g, repeat('é', 200000) as doc from generate_series(1, 5) g` });
    const preview = r.body.data.preview;
    expect(preview.rows.map((row: unknown[]) => row[0])).toEqual([1, 2]);
    expect(preview.rows[1][1]).toBe('é'.repeat(200_000));
    expect(previewBytes(preview)).toBeLessThanOrEqual(MIB);
    expect(r.body.data.completeness).toEqual({ status: 'INCOMPLETE', returnedRows: 2, totalRows: 5, boundedBy: 'previewBytes', limitSetBy: 'server' });
    expect(r.body.data.artifact.rowCount).toBe(5);
  }, 240_000);

  it('a cap that cut the result is named before the byte bound', async () => {
    const r = await runQuery(server, { sql: `select g, repeat('q', 700000) as doc from generate_series(1, 5) g`, limits: { maxRows: 3 } });
    expect(r.body.data.preview.rows.map((row: unknown[]) => row[0])).toEqual([1]);
    expect(r.body.data.completeness).toEqual({ status: 'INCOMPLETE', returnedRows: 1, totalRows: null, boundedBy: 'maxRows', limitSetBy: 'request' });
  }, 240_000);
});

describe('a small byte bound and cell bound', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SLUICE_PREVIEW_BYTES: '2048', SLUICE_PREVIEW_CELL_CHARS: '100' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('the whole preview, columns and cutCells included, stays within the bound', async () => {
    const r = await runQuery(server, { sql: `select g, repeat('w', 150) as a, repeat('v', 150) as a from generate_series(1, 50) g`, previewRows: 50 });
    const preview = r.body.data.preview;
    expect(previewBytes(preview)).toBeLessThanOrEqual(2048);
    const shown = preview.rows.length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(50);
    // Duplicate column names: cutCells index the columns.
    expect(preview.cutCells).toEqual(Array.from({ length: shown }, (_, row) => [{ row, column: 1, chars: 150 }, { row, column: 2, chars: 150 }]).flat());
    expect(preview.rows[0]).toEqual([1, 'w'.repeat(100), 'v'.repeat(100)]);
    // One more row would not have fitted.
    const oneMore = { ...preview, rows: [...preview.rows, preview.rows[0]], cutCells: [...preview.cutCells, ...preview.cutCells.slice(0, 2)] };
    expect(previewBytes(oneMore)).toBeGreaterThan(2048);
    expect(r.body.data.completeness).toMatchObject({ status: 'INCOMPLETE', returnedRows: shown, totalRows: 50, boundedBy: 'previewBytes' });
  });
});

describe('the bounds as settings', () => {
  it('default to 1 MiB and 10000 characters, and take what is given', () => {
    expect(loadConfig({})).toMatchObject({ previewBytes: 1_048_576, previewCellChars: 10_000 });
    expect(loadConfig({ SLUICE_PREVIEW_BYTES: '4096', SLUICE_PREVIEW_CELL_CHARS: '1' })).toMatchObject({ previewBytes: 4096, previewCellChars: 1 });
  });

  it('refuse hostile values at start-up, naming the variable', () => {
    for (const bad of ['0', '-1', '1023', '1.5', 'lots', '1e400', '0x10', '99999999999999999999', ' 2048x']) {
      expect(() => loadConfig({ SLUICE_PREVIEW_BYTES: bad }), bad).toThrow(/SLUICE_PREVIEW_BYTES must be an integer between 1024 and/);
    }
    for (const bad of ['0', '-5', '2.5', 'many', 'NaN', 'Infinity', '100000001']) {
      expect(() => loadConfig({ SLUICE_PREVIEW_CELL_CHARS: bad }), bad).toThrow(/SLUICE_PREVIEW_CELL_CHARS must be an integer between 1 and/);
    }
  });
});
