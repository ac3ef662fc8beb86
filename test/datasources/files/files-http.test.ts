/**
 * A files datasource through the whole server: configured by its
 * file:/// URL, listed with its kind's dialect, its tables browsed, and a
 * query run by a real query worker (the export half in a worker thread)
 * into a preview and an artifact; a statement reaching outside the folder
 * refused with no path in the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { TempFolder } from './temp-folder.ts';

const folder = new TempFolder();
let server: TestServer;

beforeAll(async () => {
  await folder.write('sales/orders.parquet', `SELECT range AS id, 'order ' || range AS label, range * 2.5 AS total FROM range(1, 1001)`);
  server = await startTestServer({ SLUICE_DATASOURCES: JSON.stringify([{ id: 'lake', url: folder.url, description: 'A folder of files' }]) });
});

afterAll(async () => {
  await server?.stop();
  await folder.close();
});

describe('a files datasource over HTTP', () => {
  it('lists its tables and describes one', async () => {
    const tables = await server.request('/api/datasources/lake/tables?schema=sales');
    expect(tables.status, JSON.stringify(tables.body)).toBe(200);
    expect(JSON.stringify(tables.body)).toContain('"orders"');
    const detail = await server.request('/api/datasources/lake/tables/sales.orders');
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(JSON.stringify(detail.body)).toContain('decimal(');
  });

  it('runs a query in a query worker: preview, exact values and an artifact', async () => {
    const r = await server.request('/api/queries', {
      body: { datasource: 'lake', sql: 'SELECT id, label, total FROM sales.orders WHERE id > $1 ORDER BY id', params: [997], materialize: 'always' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.preview.rows).toEqual([['998', 'order 998', '2495.0'], ['999', 'order 999', '2497.5'], ['1000', 'order 1000', '2500.0']]);
    expect(r.body.data.artifact.decision).toBe('CREATED');
  });

  it('refuses a read outside the folder, naming no path', async () => {
    const r = await server.request('/api/queries', { body: { datasource: 'lake', sql: `SELECT * FROM read_csv('/etc/passwd')` } });
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('READ_ONLY_VIOLATION');
    expect(JSON.stringify(r.body)).not.toContain('/etc');
    expect(JSON.stringify(r.body)).not.toContain(folder.root);
  });
});
