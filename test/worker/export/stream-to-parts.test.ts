/**
 * The export loop cut at records, with no database: a made-up row source
 * feeds PostgreSQL's CSV (quoted where a value needs it, NULL an unquoted
 * empty field, as the row sources write it) in chunks that split records anywhere, the export writes Parquet
 * parts with a real in-memory DuckDB, and the parts are read back. A cap
 * must keep whole records only (a row cap exactly N, a byte cap the
 * records that fit), values with newlines, quotes and commas must survive
 * any chunking, and where parts end must not depend on the chunking.
 */
import type { ParquetPart } from '../../../src/artifacts/types.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteLiteral } from '../../../src/columns/column-plan.ts';
import { CsvRecordScanner } from '../../../src/worker/export/csv-record-scanner.ts';
import type { ExportRequest, PreviewData } from '../../../src/worker/export-types.ts';
import { csvRecord } from '../../../src/worker/export/csv-record.ts';
import type { RowSource, SourceChunk } from '../../../src/worker/export/row-source.ts';
import { streamToParts } from '../../../src/worker/export/stream-to-parts.ts';
import { openDuck, planned } from '../../artifacts/artifact-fixture.ts';

const COLUMNS = planned([
  { name: 'id', type: 'int4' },
  { name: 'body', type: 'text' },
  { name: 'note', type: 'text' },
]);

type Value = string | null;
const record = (id: number, body: Value, note: Value) => csvRecord([String(id), body, note]);

/** Rows whose values hold everything that can fool a cut: newlines, quotes, commas, CR, empty vs NULL. */
const ROWS: [number, Value, Value][] = [
  [1, 'plain', null],
  [2, 'two\nlines', ''],
  [3, 'say "hi"\n"', 'a,b'],
  [4, '', '"'],
  [5, '\n\n', '""\n""'],
  [6, null, 'end\r\nwith crlf'],
  [7, 'ünïcødé ✓', ',\n,'],
  [8, '"', null],
];
const CSV = Buffer.from(ROWS.map(([id, b, n]) => record(id, b, n)).join(''));
const RECORD_ENDS = (() => {
  const ends: number[] = [];
  let at = 0;
  for (const [id, b, n] of ROWS) ends.push((at += Buffer.byteLength(record(id, b, n))));
  return ends;
})();

let duck: Awaited<ReturnType<typeof openDuck>>;
const dirs: string[] = [];

beforeAll(async () => {
  duck = await openDuck();
});
afterAll(() => {
  duck?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface FakeSource extends RowSource {
  cancelled: boolean;
}

/**
 * Yields `csv` cut at `cuts`; `counted` says the chunks hold whole records and
 * how many (as the COPY source does); after cancel() the next chunk is an error.
 * A chunk's bytes are written over as soon as the next is asked for, as the
 * COPY source reuses its buffers: the export must have copied what it keeps.
 */
function source(csv: Buffer, cuts: number[], counted = false, onChunk: (index: number) => void = () => undefined): FakeSource {
  const bounds = [0, ...cuts.filter((c) => c > 0 && c < csv.length), csv.length];
  const fake: FakeSource = {
    cancelled: false,
    cancel() {
      fake.cancelled = true;
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<SourceChunk> {
      for (let i = 0; i + 1 < bounds.length; i++) {
        onChunk(i);
        if (fake.cancelled) throw new Error('canceling statement due to user request');
        const bytes = csv.subarray(bounds[i]!, bounds[i + 1]!);
        const rows = counted ? new CsvRecordScanner().scan(bytes).records : null;
        const lent = Uint8Array.from(bytes);
        yield { bytes: lent, rows, longestRow: csv.length };
        lent.fill(0x7e);
      }
    },
  };
  return fake;
}

function request(overrides: Partial<Omit<ExportRequest, 'limits'>> & { limits?: Partial<ExportRequest['limits']> } = {}): ExportRequest {
  const stagingDir = mkdtempSync(join(tmpdir(), 'sluice-parts-'));
  dirs.push(stagingDir);
  return {
    sql: 'select',
    kind: 'select',
    params: [],
    previewRows: 3,
    previewBytes: 1 << 20,
    previewCellChars: 10_000,
    materialize: 'always',
    ...overrides,
    stagingDir,
    limits: { maxRows: 1_000_000, maxBytes: 1 << 30, maxDurationMs: 600_000, ...overrides.limits },
  };
}

async function run(src: RowSource, req: ExportRequest) {
  const previews: PreviewData[] = [];
  const announced: ParquetPart[] = [];
  let stop: ((reason: 'cancel') => void) | null = null;
  const result = await streamToParts(src, duck.connection, req, COLUMNS, {
    onPreview: (p) => previews.push(p),
    onProgress: () => undefined,
    onPart: (part) => announced.push(part),
    onStopper: (s) => (stop = s),
  });
  const parts = result.parts ?? [];
  // Every part kept was announced as soon as it was final, in order, and nothing else was.
  if (result.parts !== null) expect(announced).toEqual(result.parts);
  const files = parts.map((p) => quoteLiteral(join(req.stagingDir, p.name))).join(', ');
  const stored =
    parts.length === 0
      ? []
      : ((await duck.connection.runAndReadAll(`SELECT id, body, note FROM read_parquet([${files}], filename = true, file_row_number = true) ORDER BY filename, file_row_number`)).getRowsJS() as unknown[][]);
  return { result, previews, stored, stop };
}

describe('records cut across chunks', () => {
  it('keeps every value whole wherever the stream is cut (one cut at every byte)', async () => {
    for (let cut = 1; cut < CSV.length; cut++) {
      const { result, stored } = await run(source(CSV, [cut]), request());
      expect(result.rows, `cut at ${cut}`).toBe(ROWS.length);
      expect(result.cappedBy).toBeNull();
      expect(stored, `cut at ${cut}`).toEqual(ROWS);
    }
  });

  it('keeps every value whole when every byte is a chunk', async () => {
    const { result, stored } = await run(source(CSV, Array.from({ length: CSV.length }, (_, i) => i)), request());
    expect(result.rows).toBe(ROWS.length);
    expect(result.bytes).toBe(CSV.length);
    expect(stored).toEqual(ROWS);
  });

  it('gives the preview the first rows, whole, and says when they are everything', async () => {
    const cut = await run(source(CSV, [5, 17, 40]), request({ previewRows: 3 }));
    expect(cut.previews).toHaveLength(1);
    expect(cut.previews[0]!.rows).toEqual(ROWS.slice(0, 3));
    expect(cut.previews[0]!.complete).toBe(false);
    const all = await run(source(CSV, [5, 17, 40]), request({ previewRows: ROWS.length, materialize: 'auto' }));
    expect(all.previews[0]).toMatchObject({ rows: ROWS, complete: true });
    // The whole result fits in the preview: "auto" keeps no artifact.
    expect(all.result).toMatchObject({ completeInPreview: true, parts: null });
  });
});

describe('caps at exact record boundaries', () => {
  for (const counted of [false, true]) {
    const kind = counted ? 'chunks of counted records' : 'chunks cut inside records';
    it(`a row cap of N keeps exactly the first N records (${kind})`, async () => {
      for (let n = 1; n < ROWS.length; n++) {
        const cuts = counted ? RECORD_ENDS.filter((_, i) => i % 3 === 2) : [7, 30, 31, 60];
        const src = source(CSV, cuts, counted);
        const { result, stored } = await run(src, request({ limits: { maxRows: n } }));
        expect(result.rows, `maxRows ${n}`).toBe(n);
        expect(result.cappedBy).toBe('maxRows');
        expect(result.bytes).toBe(RECORD_ENDS[n - 1]);
        expect(stored).toEqual(ROWS.slice(0, n));
        // The statement already has LIMIT cap+1: a row cap drains, it does not cancel.
        expect(src.cancelled).toBe(false);
      }
    });
  }

  it('a row cap equal to the number of rows cuts nothing', async () => {
    for (const cuts of [[], [RECORD_ENDS[3]!], [9]]) {
      const { result, stored } = await run(source(CSV, cuts), request({ limits: { maxRows: ROWS.length } }));
      expect(result.cappedBy).toBeNull();
      expect(stored).toEqual(ROWS);
    }
  });

  it('a byte cap keeps the records that fit whole, and stops the statement', async () => {
    for (let cap = 1; cap < CSV.length; cap += 3) {
      const fit = RECORD_ENDS.filter((end) => end <= cap).length;
      const src = source(CSV, [11, 12, 45]);
      const { result, stored } = await run(src, request({ limits: { maxBytes: cap } }));
      expect(result.cappedBy, `maxBytes ${cap}`).toBe('maxBytes');
      expect(result.rows, `maxBytes ${cap}`).toBe(fit);
      expect(result.bytes).toBeLessThanOrEqual(cap);
      expect(stored).toEqual(ROWS.slice(0, fit));
      expect(src.cancelled).toBe(true);
    }
  });

  it('a byte cap exactly at a record end keeps that record', async () => {
    const cap = RECORD_ENDS[4]!;
    const { result, stored } = await run(source(CSV, [cap - 1, cap + 1]), request({ limits: { maxBytes: cap } }));
    expect(result).toMatchObject({ rows: 5, bytes: cap, cappedBy: 'maxBytes' });
    expect(stored).toEqual(ROWS.slice(0, 5));
  });

  it('materialize "never" stops at the preview rows, whole, and keeps no parts', async () => {
    const { result, previews } = await run(source(CSV, [3, 29]), request({ materialize: 'never', previewRows: 4 }));
    expect(result).toMatchObject({ rows: 4, cappedBy: 'previewRows', parts: null });
    expect(previews[0]!.rows).toEqual(ROWS.slice(0, 4));
  });
});

describe('cancel', () => {
  it('a cancel mid-stream stops the statement and fails the export with QUERY_CANCELLED', async () => {
    let stop: ((reason: 'cancel') => void) | null = null;
    const src = source(CSV, [10, 30, 50], false, (i) => {
      if (i === 2) stop?.('cancel');
    });
    const req = request();
    await expect(
      streamToParts(src, duck.connection, req, COLUMNS, { onPreview: () => undefined, onProgress: () => undefined, onPart: () => undefined, onStopper: (s) => (stop = s) }),
    ).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
    expect(src.cancelled).toBe(true);
  });
});

describe('parts of a large result', () => {
  // Past one part (16 MiB) of CSV, with long records that hold newlines and quotes.
  const ROW_COUNT = 18_000;
  const big = Buffer.from(
    Array.from({ length: ROW_COUNT }, (_, i) => record(i + 1, `${'x'.repeat(900 + (i % 97))}\n"${i}"`, i % 5 === 0 ? null : `n${i},`)).join(''),
  );

  it('cuts parts at record ends only, at the same rows however the stream was chunked', async () => {
    expect(big.length).toBeGreaterThan(16 * 1024 * 1024);
    const chunkings = [
      Array.from({ length: Math.ceil(big.length / 65_536) }, (_, i) => i * 65_536 + 17),
      Array.from({ length: Math.ceil(big.length / 1_000_003) }, (_, i) => i * 1_000_003),
    ];
    const layouts: string[] = [];
    for (const cuts of chunkings) {
      const { result, stored } = await run(source(big, cuts), request({ previewRows: 10 }));
      expect(result.rows).toBe(ROW_COUNT);
      expect(result.parts!.length).toBeGreaterThan(1);
      expect(result.parts!.reduce((sum, p) => sum + p.rows, 0)).toBe(ROW_COUNT);
      expect(stored).toHaveLength(ROW_COUNT);
      stored.forEach((row, i) => {
        if (row[0] !== i + 1 || !String(row[1]).endsWith(`\n"${i}"`)) throw new Error(`row ${i + 1} came back as ${JSON.stringify(row).slice(0, 80)}`);
      });
      layouts.push(JSON.stringify(result.parts!.map((p) => [p.rows, p.sha256])));
    }
    expect(layouts[1]).toBe(layouts[0]);
  }, 120_000);
});
