/**
 * The trail's writer against a real catalog (SQLite in a temp dir) that can
 * be taken away: batches as multi-row inserts off the caller's path, the
 * bounded queue while the catalog is down (the oldest dropped, said in one
 * line), recovery, and the flush on stop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditTrail, type AuditRecord } from '../../src/audit/audit-trail.ts';
import type { AuditPort, Catalog } from '../../src/catalog/catalog.ts';
import { openSqliteCatalog } from '../../src/catalog/sqlite/sqlite-catalog.ts';
import { SluiceError } from '../../src/errors.ts';
import type { Logger } from '../../src/logger.ts';

const dirs: string[] = [];
const catalogs: Catalog[] = [];
afterEach(async () => {
  for (const c of catalogs.splice(0)) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function openCatalog(): Catalog {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-audit-trail-'));
  dirs.push(dir);
  const catalog = openSqliteCatalog({ file: join(dir, 'catalog.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 });
  catalogs.push(catalog);
  return catalog;
}

/** The catalog, with a switch that makes it unreachable as a PostgreSQL catalog that went away is, and counts of the batches sent. */
function switchable(catalog: Catalog) {
  const state = { down: false, batches: [] as number[] };
  const port: AuditPort = {
    appendAudit: async (entries) => {
      if (state.down) throw new SluiceError('STORAGE_UNAVAILABLE', 'The artifact catalog cannot be reached now; retry shortly.');
      state.batches.push(entries.length);
      return catalog.appendAudit(entries);
    },
    listAudit: (q) => catalog.listAudit(q),
    purgeAudit: (t, n) => catalog.purgeAudit(t, n),
  };
  return { port, state };
}

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line) => lines.push(line), error: (line) => lines.push(line) };
}

const record = (n: number): AuditRecord => ({
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  principal: 'alice',
  action: 'read',
  route: '/api/artifacts/:id/read',
  datasource: null,
  sql: null,
  artifactId: `art_${n}`,
  outcome: 'ok',
  errorCode: null,
  rows: n,
  bytes: null,
  durationMs: 1,
  requestId: `req-${n}`,
});

describe('the audit trail writer', () => {
  it('takes entries without waiting and writes them in batches, one insert per batch', async () => {
    const catalog = openCatalog();
    const { port, state } = switchable(catalog);
    const trail = new AuditTrail(port, capture(), { batch: 40, flushMs: 60_000 });
    for (let i = 0; i < 100; i++) trail.record(record(i));
    // Nothing was written on the callers' path: the timer has not run, and no batch was full while not started.
    expect(state.batches).toEqual([]);
    expect(trail.queued).toBe(100);
    await trail.flush();
    expect(state.batches).toEqual([40, 40, 20]);
    const written = await catalog.listAudit({ limit: 500 });
    expect(written.map((e) => e.requestId)).toEqual(Array.from({ length: 100 }, (_, i) => `req-${99 - i}`));
    expect(written[0]).toMatchObject({ ...record(99), id: expect.any(String) });
  });

  it('keeps entries while the catalog is down, drops the oldest past the bound with one line saying how many, and writes the rest when it is back', async () => {
    const catalog = openCatalog();
    const { port, state } = switchable(catalog);
    const log = capture();
    const trail = new AuditTrail(port, log, { maxQueued: 5, batch: 3, flushMs: 60_000 });
    state.down = true;
    for (let i = 0; i < 12; i++) trail.record(record(i));
    await trail.flush();
    await trail.flush();
    expect(trail.queued).toBe(5);
    const dropLines = log.lines.filter((l) => l.includes('dropped'));
    expect(dropLines).toEqual(['The audit queue was full (5 entries waiting for the catalog): dropped the 7 oldest entries.']);
    // The catalog being down is said once, not once per attempt.
    expect(log.lines.filter((l) => l.includes('cannot be written now'))).toHaveLength(1);
    state.down = false;
    await trail.flush();
    expect((await catalog.listAudit({ limit: 50 })).map((e) => e.requestId)).toEqual(['req-11', 'req-10', 'req-9', 'req-8', 'req-7']);
    expect(log.lines.at(-1)).toBe('The audit trail is written again.');
  });

  it('writes what waits when it stops, and says what it could not', async () => {
    const catalog = openCatalog();
    const { port, state } = switchable(catalog);
    const log = capture();
    const trail = new AuditTrail(port, log, { flushMs: 60_000 });
    trail.start();
    trail.record(record(1));
    trail.record(record(2));
    await trail.stop();
    expect(await catalog.listAudit({ limit: 10 })).toHaveLength(2);

    const down = new AuditTrail(port, log, { flushMs: 60_000 });
    state.down = true;
    down.record(record(3));
    await down.stop();
    expect(log.lines.at(-1)).toBe('The audit trail could not be written before stopping: 1 entries are lost.');
  });
});
