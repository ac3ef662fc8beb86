/**
 * GET /api/queries: the caller's history against the real server, newest
 * first, paged with a cursor that stays stable while new queries arrive,
 * filtered by state and datasource, never showing another principal's
 * queries, and refusing bad input with VALIDATION_ERROR.
 */
import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const RESTRICTED = 'test-restricted-token-1';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    SLUICE_TOKENS: JSON.stringify([
      { token: TOKENS.admin, principal: 'admin', roles: ['admin'] },
      { token: TOKENS.analyst, principal: 'analyst' },
      { token: TOKENS.reader, principal: 'reader', roles: ['reader'] },
      { token: TOKENS.other, principal: 'other', roles: ['analyst'] },
      { token: RESTRICTED, principal: 'restricted', roles: ['reader'], datasources: ['elsewhere'] },
    ]),
  });
});
afterAll(async () => {
  await server?.stop();
});

const history = (query = '', token: string = TOKENS.reader) => server.request(`/api/queries${query}`, { token });
const run = (sql: string, token: string = TOKENS.reader, extra: Record<string, unknown> = {}) => server.request('/api/queries', { token, body: { sql, ...extra } });

async function allPages(query: string, token: string = TOKENS.reader): Promise<any[]> {
  const items: any[] = [];
  let r = await history(`?${query}`, token);
  items.push(...r.body.data.items);
  while (r.body.data.nextCursor !== null) {
    r = await history(`?${query}&cursor=${encodeURIComponent(r.body.data.nextCursor)}`, token);
    expect(r.status).toBe(200);
    items.push(...r.body.data.items);
  }
  return items;
}

describe('GET /api/queries', () => {
  const ran: { id: string; sql: string }[] = [];

  beforeAll(async () => {
    for (const sql of ['SELECT 1 AS a', 'SELECT 2 AS b', 'SELECT 3 AS c']) {
      const r = await run(sql);
      expect(r.status).toBe(200);
      ran.push({ id: r.body.data.queryId, sql });
    }
  });

  it('lists the caller\u2019s queries newest first, with how each ended', async () => {
    const withArtifact = await run('SELECT n FROM generate_series(1, 120) AS n', TOKENS.reader, { materialize: 'always' });
    expect(withArtifact.status).toBe(200);
    const failed = await run('SELECT * FROM h_history_no_such_table');
    expect(failed.body.errorCode).toBe('SQL_ERROR');
    const r = await history('?limit=5');
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    const [last, artifactOne, ...rest] = r.body.data.items;
    expect(Object.keys(r.body.data).sort()).toEqual(['items', 'nextCursor']);
    expect(last).toMatchObject({ queryId: failed.body.error.details.queryId, state: 'FAILED', datasource: 'default', sql: 'SELECT * FROM h_history_no_such_table', errorCode: 'SQL_ERROR' });
    expect(last.artifactId).toBeUndefined();
    expect(artifactOne).toEqual({
      queryId: withArtifact.body.data.queryId,
      state: 'SUCCEEDED',
      datasource: 'default',
      sql: 'SELECT n FROM generate_series(1, 120) AS n',
      submittedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      finishedAt: expect.stringMatching(/Z$/),
      rows: 120,
      artifactId: withArtifact.body.data.artifact.id,
    });
    expect(Date.parse(artifactOne.finishedAt)).toBeGreaterThanOrEqual(Date.parse(artifactOne.submittedAt));
    expect(rest.map((i: any) => i.queryId)).toEqual([ran[2]!.id, ran[1]!.id, ran[0]!.id]);
    expect(rest[0]).toMatchObject({ sql: 'SELECT 3 AS c', state: 'SUCCEEDED', rows: 1 });
    expect(rest[0].artifactId).toBeUndefined();
    expect(rest[0].errorCode).toBeUndefined();
  });

  it('pages with a stable cursor: every query exactly once, new ones never pushed into later pages', async () => {
    const before = await allPages('limit=100');
    const first = await history('?limit=2');
    expect(first.body.data.items).toHaveLength(2);
    expect(first.body.data.nextCursor).toEqual(expect.any(String));
    // A query that arrives between pages is newer than the cursor: the next pages neither repeat nor skip.
    const newer = await run('SELECT 4 AS d');
    const seen = [...first.body.data.items];
    let cursor = first.body.data.nextCursor as string | null;
    while (cursor !== null) {
      const page = await history(`?limit=2&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...page.body.data.items);
      cursor = page.body.data.nextCursor;
    }
    expect(seen.map((i) => i.queryId)).toEqual(before.map((i) => i.queryId));
    expect((await history('?limit=1')).body.data.items[0].queryId).toBe(newer.body.data.queryId);
  });

  it('filters by state and by datasource', async () => {
    const all = await allPages('limit=100');
    const failed = await allPages('state=FAILED');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((i) => i.state === 'FAILED')).toBe(true);
    expect(failed.map((i) => i.queryId)).toEqual(all.filter((i) => i.state === 'FAILED').map((i) => i.queryId));
    const succeeded = await allPages('state=SUCCEEDED&limit=2');
    expect(succeeded.map((i) => i.queryId)).toEqual(all.filter((i) => i.state === 'SUCCEEDED').map((i) => i.queryId));
    expect((await allPages('datasource=default')).map((i) => i.queryId)).toEqual(all.map((i) => i.queryId));
    expect((await history('?state=CANCELLED')).body.data).toEqual({ items: [], nextCursor: null });
  });

  it('never shows another principal\u2019s queries, nor takes its cursor further than the caller\u2019s own', async () => {
    const mine = await run('SELECT 42 AS other_only', TOKENS.other);
    const others = await allPages('limit=100', TOKENS.other);
    expect(others.map((i) => i.queryId)).toEqual([mine.body.data.queryId]);
    const readers = await allPages('limit=100');
    expect(readers.some((i) => i.queryId === mine.body.data.queryId)).toBe(false);
    expect(readers.some((i) => i.sql === 'SELECT 42 AS other_only')).toBe(false);
    // The reader's cursor in other's hands pages other's history only.
    const cursor = (await history('?limit=1')).body.data.nextCursor as string;
    const viaCursor = await history(`?cursor=${encodeURIComponent(cursor)}`, TOKENS.other);
    expect(viaCursor.status).toBe(200);
    expect(viaCursor.body.data.items.every((i: any) => i.queryId === mine.body.data.queryId)).toBe(true);
    // A principal with no queries has an empty history.
    expect((await history('', TOKENS.admin)).body.data).toEqual({ items: [], nextCursor: null });
  });

  it('refuses a bad limit, state or datasource with VALIDATION_ERROR, and a cursor it did not hand out with INVALID_CURSOR', async () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      '?limit=0',
      '?limit=501',
      '?limit=1.5',
      '?limit=lots',
      '?cursor=not-a-cursor',
      `?cursor=${forged(['not a time', 'qry_1'])}`,
      `?cursor=${forged({ createdAt: '2026-01-01T00:00:00Z' })}`,
      `?cursor=${'x'.repeat(300)}`,
      '?state=DONE',
      '?state=succeeded',
      '?datasource=nope',
      `?datasource=${encodeURIComponent("default' OR '1'='1")}`,
    ];
    for (const query of bad) {
      const r = await history(query);
      expect(r.status, query).toBe(400);
      // A cursor of the right form that this server did not hand out is INVALID_CURSOR, as on the artifact listing.
      const code = query.startsWith('?cursor=') && query.length <= 208 ? 'INVALID_CURSOR' : 'VALIDATION_ERROR';
      expect(r.body, query).toMatchObject({ success: false, data: null, errorCode: code });
    }
    // A datasource the caller may not use is as unknown as one that does not exist.
    const restricted = await history('?datasource=default', RESTRICTED);
    expect(restricted.body.errorCode).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(restricted.body)).not.toContain('postgres://');
  });

  it('needs a token', async () => {
    expect((await server.request('/api/queries', { token: null })).body.errorCode).toBe('UNAUTHORIZED');
  });
});
