/**
 * Retention of the audit trail on a real catalog with a moved clock:
 * entries past SLUICE_AUDIT_RETENTION_DAYS go in bounded rounds, younger
 * ones stay, and only the lease holder purges.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditRetention } from '../../src/audit/audit-retention.ts';
import type { AuditEntry, Catalog } from '../../src/catalog/catalog.ts';
import { openSqliteCatalog } from '../../src/catalog/sqlite/sqlite-catalog.ts';
import { loadConfig } from '../../src/config.ts';

const DAY = 24 * 3600_000;
const T0 = new Date('2026-03-01T00:00:00.000Z');
const dirs: string[] = [];
const catalogs: Catalog[] = [];
afterEach(async () => {
  for (const c of catalogs.splice(0)) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function entry(id: string, at: Date): AuditEntry {
  return { id, at: at.toISOString(), principal: 'alice', action: 'query', route: '/api/queries', datasource: 'default', sql: 'select 1', artifactId: null, outcome: 'ok', errorCode: null, rows: 1, bytes: 2, durationMs: 3, requestId: id };
}

describe('audit retention', () => {
  it('purges entries older than the retention in bounded rounds, by the lease holder only, as the clock moves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-audit-retention-'));
    dirs.push(dir);
    let now = T0;
    const catalog = openSqliteCatalog({ file: join(dir, 'catalog.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12, now: () => now });
    catalogs.push(catalog);
    const old = Array.from({ length: 1500 }, (_, i) => entry(`old-${String(i).padStart(4, '0')}`, new Date(T0.getTime() - i * 1000)));
    await catalog.appendAudit([...old, entry('recent', new Date(T0.getTime() + 20 * DAY))]);
    const options = { retentionDays: 30, log: () => undefined, now: () => now };
    const mine = new AuditRetention(catalog, { ...options, replica: 'r1' });
    const other = new AuditRetention(catalog, { ...options, replica: 'r2' });

    // Nothing is older than 30 days yet.
    now = new Date(T0.getTime() + 29 * DAY);
    expect(await mine.round()).toEqual({ ran: true, purged: 0, more: false });
    // The other replica waits while r1 holds the lease.
    expect(await other.round()).toEqual({ ran: false, purged: 0, more: false });

    now = new Date(T0.getTime() + 31 * DAY);
    expect(await mine.round()).toEqual({ ran: true, purged: 1000, more: true });
    expect(await mine.round()).toEqual({ ran: true, purged: 500, more: false });
    expect((await catalog.listAudit({ limit: 10 })).map((e) => e.id)).toEqual(['recent']);

    // Past its lease, the other replica takes over; the recent entry lasts until its own 30 days.
    now = new Date(T0.getTime() + 49 * DAY);
    expect(await other.round()).toEqual({ ran: true, purged: 0, more: false });
    now = new Date(T0.getTime() + 51 * DAY);
    expect(await other.round()).toEqual({ ran: true, purged: 1, more: false });
    expect(await catalog.listAudit({ limit: 10 })).toEqual([]);
  });

  it('reads SLUICE_AUDIT_RETENTION_DAYS: 90 by default, and a bad value stops start-up', () => {
    expect(loadConfig({}).auditRetentionDays).toBe(90);
    expect(loadConfig({ SLUICE_AUDIT_RETENTION_DAYS: '7' }).auditRetentionDays).toBe(7);
    for (const bad of ['0', '-1', '1.5', 'ninety', '36501']) {
      expect(() => loadConfig({ SLUICE_AUDIT_RETENTION_DAYS: bad }), bad).toThrow(/SLUICE_AUDIT_RETENTION_DAYS must be an integer between 1 and 36500/);
    }
  });
});
