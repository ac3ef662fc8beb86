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
    for (const value of [-0, Number.NaN, Infinity, -Infinity, 1e15, -1e15, 1e21, 1e-7, 0.1234567, 0.1 + 0.2]) expect(written(value)).toBeNull();
  });
});

/** The doubles next to `value`, `steps` spacings either way. */
function neighbours(value: number, steps: number): number[] {
  const bits = new Float64Array([value]);
  const words = new BigInt64Array(bits.buffer);
  const around: number[] = [];
  const start = words[0]!;
  for (let i = -steps; i <= steps; i++) {
    words[0] = start + BigInt(i);
    around.push(bits[0]!);
  }
  return around;
}

describe('writeNumber, 16 and 17 digits', () => {
  it('writes every non-integer from 1 to 10^15 exactly as String() does, or leaves it out', () => {
    const next = random(23);
    const values: number[] = [];
    // Products like the bench's n × 1.000001 (half of them need 17 digits), thirds, tenths.
    for (let n = 1; n <= 100_000; n++) values.push(n * 1.000001, n / 7, n * 0.1, n * 1.1, (n * 7919) * 1.000001);
    // Every magnitude and number of bits; the doubles beside short decimals (16 and 17 digits there, ties near).
    for (let i = 0; i < 100_000; i++) {
      values.push(next() * 10 ** Math.floor(next() * 16), (1 + next()) * 2 ** Math.floor(next() * 50));
      const decimal = Math.round(next() * 1e15) / 10 ** Math.floor(next() * 15);
      if (decimal >= 1) values.push(...neighbours(decimal, 2));
    }
    // Edges: next to powers of two and of ten, the largest below 10^15, halves.
    for (let e = 0; e < 50; e++) values.push(...neighbours(2 ** e, 3), ...neighbours(2 ** e + 0.5, 3));
    for (let e = 0; e <= 15; e++) values.push(...neighbours(10 ** e, 3));
    values.push(1e15 - 0.5, 1e15 - 0.125, 999999999999999.9, 1.0000000000000002, 9007199254740.993, 0.5 + 2 ** 49, 4503599627370495.5);
    let wrote = 0;
    let long = 0;
    for (const value of [...values, ...values.map((v) => -v)]) {
      const text = written(value);
      if (text === null) continue;
      wrote++;
      if (text.replace(/[-.]/g, '').length >= 16) long++;
      if (text !== String(value)) expect.fail(`${String(value)} was written as ${text}`);
    }
    // Nearly all of them are written here, many with 16 or 17 digits.
    expect(wrote).toBeGreaterThan(values.length * 2 * 0.95);
    expect(long).toBeGreaterThan(values.length / 4);
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
