import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('POST /api/queries (smoke)', () => {
  it('answers a small query completely, with no artifact under auto', async () => {
    const r = await server.request('/api/queries', { body: { sql: 'select 1::int8 as a, null::text as b' } });
    expect(r.status).toBe(200);
    expect(r.body.data.preview.rows).toEqual([['1', null]]);
    expect(r.body.data.completeness).toMatchObject({ status: 'COMPLETE', totalRows: 1, boundedBy: null });
    expect(r.body.data.artifact.decision).toBe('SKIPPED');
  });
});
