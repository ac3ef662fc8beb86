/**
 * An embedded PostgreSQL that cannot start says so with a contract error
 * that crossed from its thread as data: its code and status survive (a full
 * disk is a 507, as anywhere else) and no path does.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../../src/datasources/postgres/embedded/start-embedded.ts';
import { skipNote } from '../../helpers/skip-note.ts';
import { mountTinyDisk, TINY_DISK_SKIP_REASON } from '../../helpers/tiny-disk.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-embedded-fail-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failedStart(dataDir: string): Promise<unknown> {
  const log: string[] = [];
  const error = await startEmbeddedPostgres({ dataDir, log: (line) => log.push(line) }).then(
    () => expect.fail('the embedded database started'),
    (e: unknown) => e,
  );
  // The operator still learns the cause: the thread logs it before it fails.
  expect(log.join('\n')).toContain(dataDir);
  return error;
}

describe('embedded postgres that cannot start', () => {
  it('rejects with INTERNAL and no path when its data dir cannot be made', async () => {
    const notADirectory = join(dir, 'file');
    await writeFile(notADirectory, 'x');
    const error = await failedStart(join(notADirectory, 'pg'));
    expect(error).toMatchObject({ name: 'SluiceError', code: 'INTERNAL', status: 500, message: expect.stringMatching(/Embedded PostgreSQL failed to start/) });
    expect((error as Error).message).not.toContain(dir);
  }, 30_000);

  describe.skipIf(TINY_DISK_SKIP_REASON !== null)(skipNote(TINY_DISK_SKIP_REASON !== null, 'on a full disk', TINY_DISK_SKIP_REASON ?? ''), () => {
    it('rejects with 507 and reason STORAGE_FULL', async () => {
      const full = join(dir, 'full');
      await mkdir(full);
      // One inode, the root's: not even the data dir fits.
      const unmount = mountTinyDisk(full, 'size=64k,nr_inodes=1');
      try {
        const error = await failedStart(join(full, 'pg'));
        expect(error).toMatchObject({ name: 'SluiceError', code: 'INTERNAL', status: 507, details: { reason: 'STORAGE_FULL' } });
        expect((error as Error).message).not.toContain(dir);
      } finally {
        unmount();
      }
    }, 30_000);
  });
});
