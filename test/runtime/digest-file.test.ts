/**
 * The digest a read checks a part with, computed off the event loop, is the
 * digest the export recorded: the same SHA-256 and length as the streaming
 * digest, for empty, small and multi-read files and for one past the size
 * that is read whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { digestFile, digestFileOffThread, OFF_THREAD_MAX_BYTES, PART_READ_BYTES } from '../../src/runtime/digest-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'sluice-digest-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileOf(size: number): { path: string; sha256: string } {
  const content = randomBytes(size);
  const path = join(dir, `f-${size}`);
  writeFileSync(path, content);
  return { path, sha256: createHash('sha256').update(content).digest('hex') };
}

describe('digestFileOffThread', () => {
  it.each([0, 1, 1000, PART_READ_BYTES - 1, 3 * PART_READ_BYTES + 17])('gives what digestFile gives for %i bytes', async (size) => {
    const { path, sha256 } = fileOf(size);
    expect(await digestFileOffThread(path)).toEqual({ sha256, bytes: size });
    expect(await digestFile(path)).toEqual({ sha256, bytes: size });
  });

  it('streams a file larger than it reads whole, with the same answer', async () => {
    const { path, sha256 } = fileOf(OFF_THREAD_MAX_BYTES + 5);
    expect(await digestFileOffThread(path)).toEqual({ sha256, bytes: OFF_THREAD_MAX_BYTES + 5 });
  });

  it('fails on a missing file as digestFile does', async () => {
    await expect(digestFileOffThread(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
