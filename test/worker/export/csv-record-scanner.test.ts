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
});
