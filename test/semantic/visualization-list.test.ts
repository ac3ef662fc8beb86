/**
 * Listing and deleting saved visualizations over HTTP: the caller's own,
 * newest first, paged; a delete of another principal's, an unknown or an
 * already deleted one is NOT_FOUND and changes nothing; bad input is
 * VALIDATION_ERROR.
 */
import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const MODEL = `
explores:
  - name: numbers
    datasource: default
    sql: "select g as n, (g % 3)::text as bucket from generate_series(1, 30) g"
    dimensions: [{ name: bucket, type: string }]
    metrics: [{ name: total, type: sum, sql: n }]
`;

let server: TestServer;
let modelsDir: string;

beforeAll(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'sluice-viz-models-'));
  writeFileSync(join(modelsDir, 'numbers.yml'), MODEL);
  server = await startTestServer({ SLUICE_MODELS_DIR: modelsDir });
});
afterAll(async () => {
  await server?.stop();
  rmSync(modelsDir, { recursive: true, force: true });
});

const intent = { type: 'metric', query: { explore: 'numbers', dimensions: ['numbers.bucket'], metrics: ['numbers.total'] } };
async function save(title: string | undefined, token: string = TOKENS.analyst): Promise<string> {
  const r = await server.request('/api/semantic/visualizations', { token, body: { intent, chart: { type: 'bar', x: 'numbers.bucket', y: ['numbers.total'] }, ...(title ? { title } : {}) } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.id as string;
}
const list = (query = '', token: string = TOKENS.analyst) => server.request(`/api/semantic/visualizations${query}`, { token });

describe('GET /api/semantic/visualizations and DELETE /api/semantic/visualizations/{id}', () => {
  const mine: string[] = [];
  let theirs = '';

  beforeAll(async () => {
    for (const title of ['First', undefined, 'Third']) {
      mine.push(await save(title));
      // Distinct creation times, so newest first is a fixed order.
      await new Promise((r) => setTimeout(r, 5));
    }
    theirs = await save('Not yours', TOKENS.other);
  });

  it('lists the caller\u2019s own, newest first, page by page', async () => {
    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.data.nextCursor).toBeNull();
    expect(all.body.data.visualizations).toEqual([
      { id: mine[2], title: 'Third', createdAt: expect.stringMatching(/Z$/) },
      { id: mine[1], title: null, createdAt: expect.stringMatching(/Z$/) },
      { id: mine[0], title: 'First', createdAt: expect.stringMatching(/Z$/) },
    ]);
    const first = await list('?limit=2');
    expect(first.body.data.visualizations.map((v: any) => v.id)).toEqual([mine[2], mine[1]]);
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.body.data.nextCursor)}`);
    expect(second.body.data).toEqual({ visualizations: [all.body.data.visualizations[2]], nextCursor: null });
    expect((await list('', TOKENS.other)).body.data.visualizations.map((v: any) => v.id)).toEqual([theirs]);
  });

  it('deletes only the caller\u2019s own: another\u2019s, an unknown or a deleted one is NOT_FOUND and stays as it was', async () => {
    const stolen = await server.request(`/api/semantic/visualizations/${theirs}`, { method: 'DELETE', token: TOKENS.analyst });
    expect(stolen.status).toBe(404);
    expect(stolen.body).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect(JSON.stringify(stolen.body)).not.toContain('Not yours');
    expect((await server.request(`/api/semantic/visualizations/${theirs}`, { token: TOKENS.other })).status).toBe(200);
    expect((await server.request('/api/semantic/visualizations/viz_unknown', { method: 'DELETE', token: TOKENS.analyst })).body.errorCode).toBe('NOT_FOUND');
    const gone = await server.request(`/api/semantic/visualizations/${mine[1]}`, { method: 'DELETE', token: TOKENS.analyst });
    expect(gone.status).toBe(200);
    expect(gone.body.data).toEqual({ id: mine[1], deleted: true });
    expect((await server.request(`/api/semantic/visualizations/${mine[1]}`, { token: TOKENS.analyst })).body.errorCode).toBe('NOT_FOUND');
    expect((await server.request(`/api/semantic/visualizations/${mine[1]}`, { method: 'DELETE', token: TOKENS.analyst })).body.errorCode).toBe('NOT_FOUND');
    expect((await list()).body.data.visualizations.map((v: any) => v.id)).toEqual([mine[2], mine[0]]);
    expect((await list('', TOKENS.other)).body.data.visualizations.map((v: any) => v.id)).toEqual([theirs]);
  });

  it('refuses a bad limit with VALIDATION_ERROR, a cursor it did not hand out with INVALID_CURSOR, and readers with FORBIDDEN', async () => {
    const forged = Buffer.from(JSON.stringify(['yesterday', 'viz_1'])).toString('base64url');
    for (const [query, code] of [['?limit=0', 'VALIDATION_ERROR'], ['?limit=501', 'VALIDATION_ERROR'], ['?limit=x', 'VALIDATION_ERROR'], ['?cursor=garbage', 'INVALID_CURSOR'], [`?cursor=${forged}`, 'INVALID_CURSOR']]) {
      const r = await list(query!);
      expect(r.status, query).toBe(400);
      expect(r.body.errorCode, query).toBe(code);
    }
    expect((await list('', TOKENS.reader)).body.errorCode).toBe('FORBIDDEN');
    expect((await server.request(`/api/semantic/visualizations/${mine[0]}`, { method: 'DELETE', token: TOKENS.reader })).body.errorCode).toBe('FORBIDDEN');
    expect((await list()).body.data.visualizations).toHaveLength(2);
  });
});
