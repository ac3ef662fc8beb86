/**
 * windowBoundFor: a sixteenth of the process's memory, shared by the read
 * workers, within WINDOW_BYTES and MAX_WINDOW_BYTES each; and the memory it
 * starts from is the machine's or less.
 */
import { totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { MAX_WINDOW_BYTES, processMemoryBytes, WINDOW_BYTES, windowBoundFor } from '../../src/worker/window-bound.ts';

const MB = 1024 * 1024;
const GB = 1024 * MB;

describe('windowBoundFor', () => {
  it('gives each read worker its share of a sixteenth of the memory', () => {
    expect(windowBoundFor(2, 24 * GB)).toBe(768 * MB);
    expect(windowBoundFor(4, 8 * GB)).toBe(128 * MB);
  });

  it('gives no worker less than WINDOW_BYTES nor more than MAX_WINDOW_BYTES', () => {
    expect(WINDOW_BYTES).toBe(64 * MB);
    expect(windowBoundFor(2, 1 * GB)).toBe(WINDOW_BYTES);
    expect(windowBoundFor(64, 24 * GB)).toBe(WINDOW_BYTES);
    expect(windowBoundFor(1, 256 * GB)).toBe(MAX_WINDOW_BYTES);
    expect(windowBoundFor(0, 2 * GB)).toBe(128 * MB);
  });

  it('starts from the memory the process may use: the machine at most', () => {
    const memory = processMemoryBytes();
    expect(memory).toBeGreaterThan(0);
    expect(memory).toBeLessThanOrEqual(totalmem());
    expect(windowBoundFor(2)).toBe(windowBoundFor(2, memory));
  });
});
