/**
 * Query history past SLUICE_QUERY_HISTORY_DAYS goes in bounded rounds, on a
 * hand-moved clock, from a real SQLite catalog; entries within the
 * retention stay; an entry left RUNNING far past the longest a query may run
 * ends as FAILED. The setting itself is checked at start-up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/catalog/catalog.ts';
import { openSqliteCatalog } from '../../src/catalog/sqlite/sqlite-catalog.ts';
import { loadConfig } from '../../src/config.ts';
import { HistoryPurger } from '../../src/query/history-purger.ts';
import { QueryHistory } from '../../src/query/query-history.ts';
import { quietLogger } from '../../src/logger.ts';
import { Clock, T0 } from '../catalog/catalog-fixtures.ts';

const DAY = 24 * 3600_000;
const dir = mkdtempSync(join(tmpdir(), 'sluice-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function entry(queryId: string, submittedAt: Date, principal = 'alice', running = false): HistoryEntry {
  const at = submittedAt.toISOString();
  return { queryId, principal, datasource: 'default', sql: 'SELECT 1', state: running ? 'RUNNING' : 'SUCCEEDED', submittedAt: at, finishedAt: running ? null : at, rows: running ? null : 1, artifactId: null, errorCode: null };
}
const BOUNDS = { retentionDays: 30, maxDurationMs: 60_000 };

describe('HistoryPurger', () => {
  it('forgets history older than the retention in bounded rounds once the clock has moved past it', async () => {
    const clock = new Clock();
    const catalog = openSqliteCatalog({ file: join(dir, 'catalog.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12, now: clock.now });
    try {
      const old = Array.from({ length: 501 }, (_, i) => entry(`qry_old_${String(i).padStart(3, '0')}`, new Date(T0.getTime() + i), i % 2 === 0 ? 'alice' : 'bob'));
      for (const e of old) await catalog.putHistory(e);
      await catalog.putHistory(entry('qry_recent', new Date(T0.getTime() + 10 * DAY)));
      const purger = new HistoryPurger(catalog, BOUNDS, () => undefined, clock.now);
      const history = new QueryHistory(catalog, quietLogger);
      // Within the retention nothing goes.
      clock.advance(29 * DAY);
      expect(await purger.round()).toEqual({ abandoned: 0, purged: 0, more: false });
      expect((await history.list('alice', { limit: 500 })).items).toHaveLength(252);
      // 31 days on, the old entries go, 500 a round, and the recent one stays.
      clock.advance(2 * DAY);
      expect(await purger.round()).toEqual({ abandoned: 0, purged: 500, more: true });
      expect(await purger.round()).toEqual({ abandoned: 0, purged: 1, more: false });
      expect((await history.list('alice', { limit: 500 })).items.map((i) => i.queryId)).toEqual(['qry_recent']);
      expect((await history.list('bob', { limit: 500 })).items).toEqual([]);
      // And once the clock passes it too.
      clock.advance(10 * DAY);
      expect(await purger.round()).toEqual({ abandoned: 0, purged: 1, more: false });
      expect((await history.list('alice', { limit: 500 })).items).toEqual([]);
    } finally {
      await catalog.close();
    }
  });

  it('ends an entry left RUNNING past the longest a query may run (and its wait) as FAILED, and no younger one', async () => {
    const clock = new Clock();
    const catalog = openSqliteCatalog({ file: join(dir, 'abandoned.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12, now: clock.now });
    try {
      const purger = new HistoryPurger(catalog, BOUNDS, () => undefined, clock.now);
      const history = new QueryHistory(catalog, quietLogger);
      await catalog.putHistory(entry('qry_lost', clock.current, 'alice', true));
      clock.advance(30 * 60_000);
      await catalog.putHistory(entry('qry_running', clock.current, 'alice', true));
      // An hour and a minute (the longest run plus the margin) after the first: only it has lost its replica.
      clock.advance(31 * 60_000 + 1);
      expect(await purger.round()).toEqual({ abandoned: 1, purged: 0, more: false });
      const items = (await history.list('alice', { limit: 10 })).items;
      expect(items).toEqual([
        { queryId: 'qry_running', state: 'RUNNING', datasource: 'default', sql: 'SELECT 1', submittedAt: new Date(T0.getTime() + 30 * 60_000).toISOString() },
        { queryId: 'qry_lost', state: 'FAILED', datasource: 'default', sql: 'SELECT 1', submittedAt: T0.toISOString(), finishedAt: clock.current.toISOString(), errorCode: 'INTERNAL' },
      ]);
    } finally {
      await catalog.close();
    }
  });
});

describe('SLUICE_QUERY_HISTORY_DAYS', () => {
  it('defaults to 30 days and refuses anything but a whole number of days from 1 to 3650', () => {
    expect(loadConfig({}).queryHistoryDays).toBe(30);
    expect(loadConfig({ SLUICE_QUERY_HISTORY_DAYS: '7' }).queryHistoryDays).toBe(7);
    for (const bad of ['0', '-1', '2.5', 'forever', '3651']) {
      expect(() => loadConfig({ SLUICE_QUERY_HISTORY_DAYS: bad })).toThrow(/SLUICE_QUERY_HISTORY_DAYS must be an integer between 1 and 3650/);
    }
  });
});
