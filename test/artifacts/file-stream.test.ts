/**
 * A file served as a stream: read to its end it gives the prefix and every
 * byte and removes a temporary file; cancelled at any point (a client gone,
 * a HEAD answer that sends no body) it removes the file too, releases it
 * once, and never fails the process: a cancel that comes before the file was
 * even opened used to leave the open to fail on the removed file, with
 * nobody listening.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileStream } from '../../src/artifacts/file-stream.ts';

const dir = mkdtempSync(join(tmpdir(), 'sluice-file-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
function tempFile(bytes: number): string {
  const path = join(dir, `f${++seq}.csv`);
  writeFileSync(path, Buffer.alloc(bytes, 120));
  return path;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  let bytes = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.byteLength;
  return bytes;
}

/** Lets the file system's callbacks (an open still in flight) run, and any error they raise surface. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('a file stream', () => {
  it('gives the prefix and the whole file, then removes a temporary file and releases it once', async () => {
    const path = tempFile(700_000);
    let released = 0;
    const bytes = await readAll(fileStream(path, { temporary: true, prefix: new Uint8Array(4), onClose: () => released++ }));
    expect(bytes).toBe(700_004);
    expect(existsSync(path)).toBe(false);
    expect(released).toBe(1);
  });

  it.each([
    ['before anything was read', 0],
    ['after the prefix, before the file was opened', 1],
    ['in the middle of the file', 2],
  ])('cancelled %s, removes the file and releases it once', async (_when, reads) => {
    const path = tempFile(700_000);
    let released = 0;
    const reader = fileStream(path, { temporary: true, prefix: new Uint8Array(4), onClose: () => released++ }).getReader();
    for (let i = 0; i < reads; i++) expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    await settle();
    expect(existsSync(path)).toBe(false);
    expect(released).toBe(1);
  });

  it('without a prefix, cancelled while its first read is in flight, removes the file and releases it once', async () => {
    const path = tempFile(700_000);
    let released = 0;
    // A stream asks for its first chunk as soon as it exists: the file is opening when the cancel comes.
    await fileStream(path, { temporary: true, onClose: () => released++ }).cancel();
    await settle();
    expect(existsSync(path)).toBe(false);
    expect(released).toBe(1);
  });
});
