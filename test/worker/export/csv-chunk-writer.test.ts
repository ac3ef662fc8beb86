/**
 * The chunk writer writes the same bytes as csvRecord (PostgreSQL's COPY
 * CSV), whichever way a value reaches it, so a byte cap counts the same on
 * every engine; and it hands on only whole records, with their exact
 * longest length.
 */
import { describe, expect, it } from 'vitest';
import { CsvChunkWriter } from '../../../src/worker/export/csv-chunk-writer.ts';
import { csvRecord } from '../../../src/worker/export/csv-record.ts';

const VALUES: (string | null)[] = [null, '', 'a', 'x,y', 'say "hi"', 'line\nbreak', 'cr\rhere', '\\.', 'é ü 😀', '"', ',', '12.50', '-838:59:59'];

function viaBytes(rows: (string | null)[][]): Buffer {
  const out = new CsvChunkWriter(rows[0]!.length, 8);
  for (const row of rows) {
    for (const value of row) {
      if (value === null) out.null();
      else {
        const bytes = Buffer.from(`..${value}..`);
        out.text(bytes, 2, bytes.length - 2);
      }
    }
    out.endRecord();
  }
  return Buffer.from(out.take().bytes);
}

function viaStrings(rows: (string | null)[][]): Buffer {
  const out = new CsvChunkWriter(rows[0]!.length, 8);
  for (const row of rows) {
    for (const value of row) value === null ? out.null() : out.string(value);
    out.endRecord();
  }
  return Buffer.from(out.take().bytes);
}

describe('CsvChunkWriter', () => {
  it('writes what csvRecord writes, from bytes and from strings, one column or several', () => {
    for (const width of [1, 3]) {
      const rows = VALUES.map((_, r) => Array.from({ length: width }, (__, c) => VALUES[(r + c * 5) % VALUES.length]!));
      const expected = Buffer.from(rows.map(csvRecord).join(''));
      expect(viaBytes(rows).toString()).toBe(expected.toString());
      expect(viaStrings(rows).toString()).toBe(expected.toString());
    }
  });

  it('copies plain bytes and a suffix as they are, but still quotes an empty value', () => {
    const out = new CsvChunkWriter(3, 64);
    const bytes = Buffer.from('2024-01-01 00:00:01.000000');
    out.plain(bytes, 0, bytes.length);
    out.plainJoined(bytes, 0, bytes.length, Buffer.from('+00'));
    out.plain(bytes, 3, 3);
    out.endRecord();
    expect(out.take().bytes.toString()).toBe('2024-01-01 00:00:01.000000,2024-01-01 00:00:01.000000+00,""\n');
  });

  it('hands on whole records only, counts them, and measures the longest exactly; a dropped record leaves nothing', () => {
    const out = new CsvChunkWriter(2, 4);
    out.ascii('1');
    out.string('a,b');
    out.endRecord();
    out.ascii('22');
    out.null();
    out.endRecord();
    out.ascii('333');
    out.dropRecord();
    expect(out.full).toBe(true);
    const chunk = out.take();
    expect(chunk.bytes.toString()).toBe('1,"a,b"\n22,\n');
    expect([chunk.rows, chunk.longestRow]).toEqual([2, 8]);
    expect(out.rows).toBe(0);
    expect(out.take().bytes.length).toBe(0);
  });

  it('keeps a taken chunk intact while the next is written', () => {
    const out = new CsvChunkWriter(1, 4);
    out.string('first');
    out.endRecord();
    const chunk = out.take();
    out.string('second');
    out.endRecord();
    expect(chunk.bytes.toString()).toBe('first\n');
  });

  it('replaces bytes that are not UTF-8 as decoding would, and bounds the longest record by the replaced bytes', () => {
    const out = new CsvChunkWriter(1, 64);
    const bad = Buffer.from([0x61, 0xff, 0x62]);
    out.text(bad, 0, bad.length);
    out.endRecord();
    const chunk = out.take();
    expect(chunk.bytes.toString()).toBe('a\uFFFDb\n');
    expect(chunk.longestRow).toBeGreaterThanOrEqual(chunk.bytes.length);
  });

  it('writes into a handed-back buffer only after the chunk after it is taken, and never into one not handed back', () => {
    const out = new CsvChunkWriter(1, 16);
    const chunkOf = (text: string) => {
      out.string(text);
      out.endRecord();
      return out.take();
    };
    const first = chunkOf('first');
    out.giveBack();
    const second = chunkOf('second');
    // `first`'s buffer is written into now (it was handed back); `second` is still lent.
    const third = chunkOf('third');
    expect(third.bytes.buffer).toBe(first.bytes.buffer);
    expect(Buffer.from(second.bytes).toString()).toBe('second\n');
    expect(Buffer.from(third.bytes).toString()).toBe('third\n');
    // Not handed back: the next chunk gets a buffer of its own, and `third` stays as it was.
    const fourth = chunkOf('fourth');
    expect(fourth.bytes.buffer).not.toBe(third.bytes.buffer);
    expect(Buffer.from(third.bytes).toString()).toBe('third\n');
    expect(Buffer.from(fourth.bytes).toString()).toBe('fourth\n');
  });
});
