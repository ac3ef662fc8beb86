/**
 * A client that asks for a download and goes before the file is ready (the
 * read worker writes a CSV or JSONL file first, which takes a while for a
 * large artifact): the answer finds its connection closed and drops the
 * body. The file is removed, the audit records the download as failed with
 * the bytes taken before the drop, and the server goes on.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { entriesOf } from '../audit/audit-trail-helpers.ts';

let server: TestServer;
let id: string;

beforeAll(async () => {
  server = await startTestServer();
  id = await createArtifact(server, 'select g::int8 as id, repeat(md5(g::text), 4) as filler from generate_series(1, 150000) g');
});
afterAll(async () => {
  await server?.stop();
});

describe('a download whose client is gone before the answer', () => {
  it.each(['csv', 'jsonl'])('keeps no %s file and the server answers the next request', async (format) => {
    const requestId = `gone-${format}-${Date.now()}`;
    const abort = new AbortController();
    const gone = fetch(`${server.sluice.url}/api/artifacts/${id}/download?format=${format}`, { headers: { 'x-token': TOKENS.admin, 'x-request-id': requestId }, signal: abort.signal });
    // Gone while the worker writes the file (150,000 rows: far longer than this).
    setTimeout(() => abort.abort(), 30);
    await expect(gone).rejects.toThrow();
    // The server is done with the request once its audit entry is written: the body was dropped.
    const [entry] = await entriesOf(server, requestId);
    expect(entry).toMatchObject({ action: 'download', outcome: 'failed' });
    // Whatever the server took before it saw the connection gone (a chunk or two on some Node versions), never the whole.
    let whole = format === 'csv' ? 'id,filler\n'.length : 0;
    for (let g = 1; g <= 150000; g++) whole += String(g).length + 130;
    expect(entry!.bytes).toBeLessThan(whole);
    const downloads = join(server.dataDir, 'artifacts', 'downloads');
    expect(existsSync(downloads) ? readdirSync(downloads) : []).toEqual([]);
    const after = await server.request(`/api/artifacts/${id}`);
    expect(after.status).toBe(200);
    expect(after.body.data.rowCount).toBe(150000);
  });
});
