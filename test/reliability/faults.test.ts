/**
 * Faults: the database connection dying under a running query (the backend
 * terminated, as a PostgreSQL restart would) gives a clean SQL_ERROR that
 * says it can be retried, and the next query works on a fresh connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED, startTestServer, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ SLUICE_QUERY_WORKERS: '1' });
});
afterAll(async () => {
  await server?.stop();
});

describe.skipIf(EMBEDDED)(skipNote(EMBEDDED, 'faults', 'the embedded database cannot lose one backend alone'), () => {
  it('a backend killed mid-query fails that query cleanly, and the pool recovers', async () => {
    const marker = `fault_${Date.now()}`;
    const running = await server.request('/api/queries', { body: { sql: `select pg_sleep(5), '${marker}' as m`, waitMs: 0 } });
    expect(running.status).toBe(202);
    let killed = 0;
    for (let i = 0; i < 50 && killed === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const rows = await server.sql.query(`select pg_terminate_backend(pid) as ok from pg_stat_activity where query like '%${marker}%' and pid <> pg_backend_pid()`);
      killed = rows.filter((r) => r.ok).length;
    }
    expect(killed).toBe(1);
    const ended = await server.request(`/api/queries/${running.body.data.queryId}?waitMs=10000`);
    expect(ended.status).toBeLessThan(500);
    expect(ended.body.errorCode).toBe('SQL_ERROR');
    expect(ended.body.error.details).toMatchObject({ state: 'FAILED', retryable: true });
    const next = await server.request('/api/queries', { body: { sql: 'select 42 as answer' } });
    expect(next.status).toBe(200);
    expect(next.body.data.preview.rows).toEqual([[42]]);
  });
});

describe.skipIf(EMBEDDED)(skipNote(EMBEDDED, 'disk full', 'the embedded database does not fit a tiny disk'), () => {
  it('fails the artifact with a reason, keeps the preview, and leaves nothing partial', async (context) => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, readdirSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'sluice-tinyfs-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', dir], { stdio: 'ignore' });
    } catch {
      rmSync(dir, { recursive: true, force: true });
      const reason = 'mounting a small tmpfs needs root (CI runs as root)';
      console.log(`SKIPPED "disk full": ${reason}`);
      context.skip(reason);
      return;
    }
    const small = await startTestServer({ SLUICE_DATA_DIR: dir });
    try {
      const r = await small.request('/api/queries', { body: { sql: "select g::int8 as id, repeat(md5(g::text), 4) as filler from generate_series(1, 200000) g", previewRows: 5 } });
      expect(r.status).toBe(200);
      expect(r.body.data.state).toBe('SUCCEEDED');
      expect(r.body.data.preview.rows).toHaveLength(5);
      expect(r.body.data.artifact).toMatchObject({ decision: 'FAILED', reason: 'STORAGE_FULL' });
      expect(r.body.data.completeness).toMatchObject({ status: 'INCOMPLETE', totalRows: null });
      expect(JSON.stringify(r.body)).not.toContain(dir);
      expect(readdirSync(join(dir, 'artifacts', 'staging'))).toEqual([]);
      expect((await small.request('/api/artifacts')).body.data.artifacts).toEqual([]);
      // The server goes on: a small query still works.
      expect((await small.request('/api/queries', { body: { sql: 'select 1 as one' } })).status).toBe(200);
    } finally {
      await small.stop();
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
