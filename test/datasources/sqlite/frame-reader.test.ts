/**
 * Frames read back whole and in order however the pipe cut them, including
 * frames put together from several reads into the reader's reused buffer:
 * each frame's bytes are right until the next frame is asked for.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { FrameReader } from '../../../src/datasources/sqlite/export/frame-reader.ts';
import { encodeFrame, type Frame } from '../../../src/datasources/sqlite/export/statement-protocol.ts';

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function rowsFrame(size: number, fill: number): Frame {
  const bytes = Buffer.alloc(size, fill);
  return { kind: 'rows', rows: size, longestRow: fill, bytes };
}

async function* pieces(stream: Buffer, cuts: () => number): AsyncGenerator<Buffer> {
  for (let at = 0; at < stream.length; ) {
    const size = Math.max(1, Math.floor(cuts()));
    // A fresh buffer per read, as a pipe gives them.
    yield Buffer.from(stream.subarray(at, at + size));
    at += size;
  }
}

describe('FrameReader', () => {
  it('reads every frame whole, whatever the reads, the split ones from its reused buffer', async () => {
    const next = random(5);
    const frames: Frame[] = [{ kind: 'started' }, { kind: 'columns', columns: [{ name: 'a', type: 'integer', storage: 'int8' }] }];
    for (let i = 0; i < 60; i++) frames.push(rowsFrame(1 + Math.floor(next() * 100_000), i + 1));
    frames.push({ kind: 'end' });
    const stream = Buffer.concat(frames.flatMap((f) => encodeFrame(f)));
    for (const readBytes of [3, 4096, 65_536, 300_000]) {
      const reader = new FrameReader(pieces(stream, () => readBytes * (0.5 + next())));
      for (const sent of frames) {
        const got = await reader.next();
        if (sent.kind !== 'rows') {
          expect(got).toEqual(sent);
          continue;
        }
        expect(got?.kind).toBe('rows');
        if (got?.kind !== 'rows') return;
        expect([got.rows, got.longestRow, got.bytes.length]).toEqual([sent.rows, sent.longestRow, sent.bytes.length]);
        // Every byte is the frame's own fill: none from a frame before or after it.
        expect(got.bytes.every((b) => b === sent.longestRow)).toBe(true);
      }
      expect(await reader.next()).toBeNull();
    }
  });

  it('ends with null when the stream stops within a frame', async () => {
    const whole = Buffer.concat(encodeFrame(rowsFrame(1000, 7)));
    const reader = new FrameReader(pieces(whole.subarray(0, 600), () => 100));
    expect(await reader.next()).toBeNull();
  });
});
