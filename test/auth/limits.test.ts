/** Per-principal rate limiting and the cap on concurrent queries, both configurable. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ SLUICE_RATE_LIMIT_PER_MINUTE: '5', SLUICE_MAX_CONCURRENT_QUERIES: '1' });
});
afterAll(async () => {
  await server?.stop();
});

describe('limits', () => {
  it('answers RATE_LIMITED with Retry-After past the per-principal rate, and other principals are not affected', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<TestServer['request']>> | undefined;
    for (let i = 0; i < 7; i++) {
      last = await server.request('/api/datasources', { token: TOKENS.reader });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[6]).toBe(429);
    expect(last!.body.errorCode).toBe('RATE_LIMITED');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await server.request('/api/datasources', { token: TOKENS.other })).status).toBe(200);
  });

  it('refuses a second concurrent query of the same principal, and accepts it once the first ends', async () => {
    const slow = await server.request('/api/queries', { token: TOKENS.analyst, body: { sql: 'select pg_sleep(1.5)', waitMs: 0 } });
    expect(slow.status).toBe(202);
    const second = await server.request('/api/queries', { token: TOKENS.analyst, body: { sql: 'select 1' } });
    expect(second.status).toBe(429);
    expect(second.body.errorCode).toBe('RATE_LIMITED');
    expect(second.headers.get('retry-after')).toBe('1');
    await server.request(`/api/queries/${slow.body.data.queryId}?waitMs=5000`, { token: TOKENS.analyst });
    const third = await server.request('/api/queries', { token: TOKENS.analyst, body: { sql: 'select 1' } });
    expect(third.status).toBe(200);
  });
});
