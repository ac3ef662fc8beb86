import { describe, expect, it } from 'vitest';
import { CsvRecordScanner } from '../../../src/worker/export/csv-record-scanner.ts';

const csv = '"1","a\nb",,""\n"2","say ""hi""\n",,"x"\n"3","",,"y"\n';

describe('CsvRecordScanner', () => {
  it('counts records, ignoring newlines and doubled quotes inside quoted fields', () => {
    const result = new CsvRecordScanner().scan(Buffer.from(csv));
    expect(result.records).toBe(3);
    expect(result.lastEnd).toBe(Buffer.byteLength(csv));
  });

  it('keeps quote state across chunks split at every possible byte', () => {
    const bytes = Buffer.from(csv);
    for (let cut = 1; cut < bytes.length; cut++) {
      const scanner = new CsvRecordScanner();
      const a = scanner.scan(bytes.subarray(0, cut));
      const b = scanner.scan(bytes.subarray(cut));
      expect(a.records + b.records).toBe(3);
    }
  });

  it('stops after the requested number of records and reports where', () => {
    const bytes = Buffer.from(csv);
    const result = new CsvRecordScanner().scan(bytes, 0, 1);
    expect(result.records).toBe(1);
    expect(bytes.subarray(0, result.lastEnd).toString()).toBe('"1","a\nb",,""\n');
    expect(result.stoppedAt).toBe(result.lastEnd);
  });

  it('reports no boundary inside an unfinished record', () => {
    const result = new CsvRecordScanner().scan(Buffer.from('"1","open\n'));
    expect(result.records).toBe(0);
    expect(result.lastEnd).toBe(-1);
  });

  it('finds records in PostgreSQL\u2019s own CSV, where only values that need it are quoted', () => {
    const plain = '1,a b,,""\n2,"x,y",t,"say ""hi"""\n3,"two\nlines",,\n';
    const bytes = Buffer.from(plain);
    for (let cut = 1; cut < bytes.length; cut++) {
      const scanner = new CsvRecordScanner();
      const a = scanner.scan(bytes.subarray(0, cut));
      const b = scanner.scan(bytes.subarray(cut));
      expect(a.records + b.records, `cut at ${cut}`).toBe(3);
    }
  });

  it('reports the longest record, counting the part of it that came in earlier chunks', () => {
    const lines = ['1,short\n', '2,"a much\nlonger record"\n', '3,x\n'];
    const bytes = Buffer.from(lines.join(''));
    const longest = Math.max(...lines.map((l) => Buffer.byteLength(l)));
    for (let cut = 1; cut < bytes.length; cut++) {
      const scanner = new CsvRecordScanner();
      const a = scanner.scan(bytes.subarray(0, cut));
      const b = scanner.scan(bytes.subarray(cut));
      expect(Math.max(a.longest, b.longest), `cut at ${cut}`).toBe(longest);
    }
  });

  it('stops at the first record that ends at or past a given offset', () => {
    const bytes = Buffer.from('1,a\n2,bb\n3,ccc\n4,d\n');
    const result = new CsvRecordScanner().scan(bytes, 0, 1, 6);
    expect(result).toMatchObject({ records: 2, lastEnd: 9, stoppedAt: 9 });
    // Both limits must be met: two records, even when the first already ends past the offset.
    expect(new CsvRecordScanner().scan(bytes, 0, 2, 1)).toMatchObject({ records: 2, lastEnd: 9 });
    expect(new CsvRecordScanner().scan(bytes, 0, 0)).toMatchObject({ records: 0, stoppedAt: 0 });
  });
});
