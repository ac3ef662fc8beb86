/**
 * Numbers written digit by digit are the same text String() gives, so a
 * CSV value (and a byte cap) is the same whichever way it was written; what
 * the digit writer leaves out falls back to String() in the chunk writer.
 */
import { describe, expect, it } from 'vitest';
import { CsvChunkWriter } from '../../../src/worker/export/csv-chunk-writer.ts';
import { MAX_NUMBER_BYTES, writeNumber } from '../../../src/worker/export/number-digits.ts';

const out = new Uint8Array(MAX_NUMBER_BYTES);

/** String(value), or what the digit writer wrote when it wrote it; null when it left the number out. */
function written(value: number): string | null {
  const end = writeNumber(out, 0, value);
  return end < 0 ? null : Buffer.from(out.subarray(0, end)).toString('latin1');
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function decimals(): number[] {
  const next = random(7);
  const values: number[] = [];
  for (let places = 0; places <= 8; places++) {
    for (let i = 0; i < 20_000; i++) {
      const magnitude = 10 ** Math.floor(next() * 17);
      const value = Math.round(next() * magnitude) / 10 ** places;
      values.push(value, -value);
    }
  }
  return values;
}

const EDGES = [
  0, 1, 9, 10, 99, 100, 0.1, 0.2, 0.3, 0.1 + 0.2, 1 / 3, 2 / 3, 0.000001, 0.0000015, 0.0000001, 1e-7, 123456.123456, 999999999.999999,
  1e9 - 0.5, 1e9 + 0.5, 1e15 - 1, 1e15, 1e15 + 1, 2 ** 53, 2 ** 53 + 2, 1e21, 1e22, 5e-324, Number.MAX_VALUE, Number.MIN_VALUE, 4.35, 0.07, 1.005,
  9.995, 99.995, 12345.675, 1.000001 * 999999, 0.1 * 3, 8.7e-5, 1.7976931348623157e308,
];

describe('writeNumber', () => {
  it('writes exactly what String() writes, or leaves the number out', () => {
    const values = [...EDGES, ...EDGES.map((v) => -v), ...decimals()];
    const next = random(11);
    // Doubles of every magnitude, most with 17 digits: these are left out, and must never be written wrong.
    for (let i = 0; i < 50_000; i++) values.push((next() - 0.5) * 10 ** Math.floor(next() * 40 - 20));
    let wrote = 0;
    for (const value of values) {
      const text = written(value);
      if (text === null) continue;
      wrote++;
      if (text !== String(value)) expect.fail(`${String(value)} was written as ${text}`);
    }
    // Most integers and short decimals take the digit path.
    expect(wrote).toBeGreaterThan(values.length / 2);
  });

  it('leaves out -0, NaN, the infinities and numbers past its range', () => {
    for (const value of [-0, Number.NaN, Infinity, -Infinity, 1e15, -1e15, 1e21, 1e-7, 0.1234567, 1e9 + 0.5]) expect(written(value)).toBeNull();
  });
});

describe('CsvChunkWriter.number', () => {
  it('writes a record of numbers as String() or the fallback gives them', () => {
    const values = [0, -0, 1.5, -2, 0.1 + 0.2, Infinity, 123456789012345680, Number.NaN];
    const writer = new CsvChunkWriter(values.length, 1024);
    const fallback = (value: number) => (Object.is(value, -0) ? '-0' : String(value));
    for (const value of values) writer.number(value, fallback);
    writer.endRecord();
    expect(Buffer.from(writer.take().bytes).toString()).toBe(`${values.map(fallback).join(',')}\n`);
  });
});
