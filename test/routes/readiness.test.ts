/**
 * /readyz follows the query workers as they are now, not as they were at
 * start: a server whose only query worker crashed and cannot be replaced
 * (its entry no longer loads) answers 503 naming the query workers, and 200
 * again, by itself, once a worker loads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { removableWorkerEntry, type RemovableWorkerEntry } from '../helpers/removable-worker-entry.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const CRASHING_WORKER = new URL('../fixtures/crashing-worker.ts', import.meta.url);

/** Asks /readyz until it answers `status`, for at most `ms`. */
async function readyzUntil(server: TestServer, status: number, ms = 10_000): Promise<{ status: number; body: any }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await server.request('/readyz', { token: null });
    if (answer.status === status || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('/readyz and the query workers', () => {
  let entry: RemovableWorkerEntry | undefined;
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    entry?.dispose();
  });

  it('answers 503 naming the query workers while none can take a task, and 200 once one has loaded again', async () => {
    entry = removableWorkerEntry(CRASHING_WORKER);
    server = await startTestServer({ SLUICE_QUERY_WORKERS: '1' }, { queryWorker: entry.url });
    expect((await server.request('/readyz', { token: null })).status).toBe(200);

    entry.remove();
    const crashed = await server.request('/api/queries', { body: { sql: 'SELECT 1' } });
    expect(crashed.body.errorCode).toBe('INTERNAL');

    const notReady = await readyzUntil(server, 503);
    expect(notReady).toMatchObject({ status: 503, body: { status: 'not ready', missing: ['query workers'] } });

    entry.restore();
    expect(await readyzUntil(server, 200)).toMatchObject({ status: 200, body: { status: 'ready', missing: [] } });
  });
});
