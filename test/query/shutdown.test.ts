/** Shutdown cancels running statements on the database before the workers stop. */
import { describe, expect, it } from 'vitest';
import { openAdminSql } from '../helpers/admin-sql.ts';
import { EMBEDDED, startTestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';

describe.skipIf(EMBEDDED)(skipNote(EMBEDDED, 'shutdown', 'the embedded database cannot cancel a running statement'), () => {
  it('leaves no statement of ours running on PostgreSQL', async () => {
    const server = await startTestServer();
    const marker = `shutdown_${process.pid}_${Date.now()}`;
    const r = await server.request('/api/queries', { body: { sql: `select pg_sleep(30), '${marker}' as m`, waitMs: 300 } });
    expect(r.status).toBe(202);
    const watcher = openAdminSql(server.databaseUrl);
    try {
      await server.stop();
      const rows = await watcher.query(`select count(*)::int as n from pg_stat_activity where state = 'active' and query like '%${marker}%' and pid <> pg_backend_pid()`);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await watcher.end();
    }
  });
});
