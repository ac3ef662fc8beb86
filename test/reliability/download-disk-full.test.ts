/**
 * A download whose file cannot be written because the disk is full answers
 * 507 with reason STORAGE_FULL, as an export that fills the disk does, and
 * names no path. Only the downloads directory sits on the tiny disk, so the
 * artifact, the catalog and everything else keep working.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifact, startTestServer, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { mountTinyDisk, TINY_DISK_SKIP_REASON } from '../helpers/tiny-disk.ts';

const SKIPPED = TINY_DISK_SKIP_REASON !== null;

describe.skipIf(SKIPPED)(skipNote(SKIPPED, 'download to a full disk', TINY_DISK_SKIP_REASON ?? ''), () => {
  let server: TestServer;
  let id: string;
  let downloads: string;
  let unmount: (() => void) | undefined;

  beforeAll(async () => {
    server = await startTestServer();
    // About 3 MB as CSV or JSONL, far more than the tiny disk holds.
    id = await createArtifact(server, 'select g::int8 as id, repeat(md5(g::text), 4) as filler from generate_series(1, 20000) g');
    downloads = join(server.dataDir, 'artifacts', 'downloads');
    unmount = mountTinyDisk(downloads, 'size=256k');
  });
  afterAll(async () => {
    unmount?.();
    await server?.stop();
  });

  // CSV is written by DuckDB's COPY, JSONL line by line from the worker.
  it.each(['csv', 'jsonl'])('answers 507 STORAGE_FULL for %s and keeps nothing partial', async (format) => {
    const r = await server.request(`/api/artifacts/${id}/download?format=${format}`);
    expect(r.status).toBe(507);
    expect(r.body).toMatchObject({ success: false, errorCode: 'INTERNAL', error: { details: { reason: 'STORAGE_FULL' } } });
    expect(JSON.stringify(r.body)).not.toContain(server.dataDir);
    expect(readdirSync(downloads)).toEqual([]);
  });
});
