/**
 * A datasource whose engine cannot be reached: its queries and schema
 * lookups answer 503 DATASOURCE_UNAVAILABLE (retryable, saying nothing of
 * its URL); /readyz stays 200 while another datasource can be reached,
 * listing the unreachable one in `degraded`, and is 503 when none can: a
 * PostgreSQL or MariaDB server that is down, a SQLite file or a folder that
 * is missing alike.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Nothing listens on port 1. */
const DOWN_URL = 'postgres://sluice:secret@127.0.0.1:1/nowhere';

/** A MariaDB nothing answers for, and a SQLite file and a folder under a directory that does not exist. */
function otherKindsDown(): { id: string; url: string }[] {
  const gone = join(tmpdir(), `sluice-gone-${process.pid}-${Date.now()}`);
  return [
    { id: 'maria', url: 'mysql://sluice:secret@127.0.0.1:1/nowhere' },
    { id: 'lite', url: `sqlite://${gone}/nowhere.db` },
    { id: 'folder', url: `file://${gone}/nowhere` },
  ];
}

describe('a datasource that cannot be reached', () => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('answers DATASOURCE_UNAVAILABLE on it while /readyz stays ready and lists it as degraded', async () => {
    server = await startTestServer({ SLUICE_DATASOURCES: JSON.stringify([{ id: 'down', url: DOWN_URL }]) });
    const ready = await server.request('/readyz', { token: null });
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', missing: [], degraded: ['down'] } });

    const query = await server.request('/api/queries', { body: { sql: 'SELECT 1 AS one', datasource: 'down' } });
    expect(query.status).toBe(503);
    expect(query.body).toMatchObject({ success: false, errorCode: 'DATASOURCE_UNAVAILABLE', error: { details: { retryable: true } } });
    const tables = await server.request('/api/datasources/down/tables');
    expect(tables.status).toBe(503);
    expect(tables.body.errorCode).toBe('DATASOURCE_UNAVAILABLE');
    for (const answer of [query, tables]) {
      expect(JSON.stringify(answer.body)).not.toMatch(/secret|127\.0\.0\.1|nowhere/);
    }

    // The reachable datasource is untouched.
    const fine = await server.request('/api/queries', { body: { sql: 'SELECT 1 AS one' } });
    expect(fine.status).toBe(200);
    expect(fine.body.data.preview.rows).toEqual([[1]]);
  });

  it('treats a MariaDB that is down, a SQLite file and a folder that are missing the same way, each on its own', async () => {
    server = await startTestServer({ SLUICE_DATASOURCES: JSON.stringify(otherKindsDown()) });
    const ready = await server.request('/readyz', { token: null });
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', missing: [] });
    expect([...ready.body.degraded].sort()).toEqual(['folder', 'lite', 'maria']);

    const sentences = { maria: /server cannot be reached right now/, lite: /SQLite file of this datasource cannot be opened: it is missing/, folder: /folder of this datasource is missing/ };
    for (const [id, sentence] of Object.entries(sentences)) {
      const query = await server.request('/api/queries', { body: { sql: 'SELECT 1 AS one', datasource: id } });
      expect(query.status, id).toBe(503);
      expect(query.body, id).toMatchObject({ success: false, errorCode: 'DATASOURCE_UNAVAILABLE', error: { details: { retryable: true } } });
      expect(query.body.error.message, id).toMatch(sentence);
      const tables = await server.request(`/api/datasources/${id}/tables`);
      expect(tables.status, id).toBe(503);
      expect(tables.body.errorCode, id).toBe('DATASOURCE_UNAVAILABLE');
      for (const answer of [query, tables]) expect(JSON.stringify(answer.body), id).not.toMatch(/secret|127\.0\.0\.1|nowhere|sluice-gone/);
    }
    const fine = await server.request('/api/queries', { body: { sql: 'SELECT 1 AS one' } });
    expect(fine.status).toBe(200);
    expect(fine.body.data.preview.rows).toEqual([[1]]);
  });

  it('makes /readyz answer 503 naming the datasources when none can be reached', async () => {
    server = await startTestServer({ DATABASE_URL: DOWN_URL });
    const notReady = await server.request('/readyz', { token: null });
    expect(notReady).toMatchObject({ status: 503, body: { status: 'not ready', missing: ['datasources'], degraded: [] } });
  });

  it('makes /readyz answer 503 when none of the other kinds can be reached either, the default a MariaDB that is down', async () => {
    server = await startTestServer({ DATABASE_URL: 'mysql://sluice:secret@127.0.0.1:1/nowhere', SLUICE_DATASOURCES: JSON.stringify(otherKindsDown().slice(1)) });
    const notReady = await server.request('/readyz', { token: null });
    expect(notReady).toMatchObject({ status: 503, body: { status: 'not ready', missing: ['datasources'], degraded: [] } });
  });
});
