/**
 * The console in Chromium against a whole Sluice: signing in (and a bad
 * token's error sentence), the tabs a role is offered, a query's summary,
 * completeness badges and exact values, paging, filtering and sorting the
 * artifact, a download, an SQL error, a cancelled running query (the
 * backend stops), the artifacts list with its quota meter and a delete, and
 * a narrow window. Screenshots of the Query and Artifacts tabs go to
 * docs/console/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openSqlite } from '../../src/runtime/sqlite.ts';
import { EMBEDDED, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { CHROMIUM, closeChecked, HAVE_CHROMIUM, launch, openPage, screenshot, SHOTS, type WatchedPage } from './browser.ts';

const S = 'consoletest';
const NO_BROWSER = `${CHROMIUM} is not installed`;
let server: TestServer;
let browser: Browser;
let current: WatchedPage | null = null;
let liteDir: string | undefined;

describe.skipIf(!HAVE_CHROMIUM)(skipNote(!HAVE_CHROMIUM, 'console in Chromium: sign-in, Query, Artifacts', NO_BROWSER), () => {
  beforeAll(async () => {
    // A SQLite file and a folder beside the embedded PostgreSQL: the datasource list tells each one's engine.
    liteDir = mkdtempSync(join(tmpdir(), 'sluice-console-lite-'));
    mkdirSync(join(liteDir, 'lake'));
    const lite = openSqlite(join(liteDir, 'notes.db'));
    lite.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    // The server opens the file read-only: no write-ahead log it would have to create.
    lite.exec('PRAGMA journal_mode = DELETE');
    lite.close();
    server = await startTestServer({
      SLUICE_DATASOURCES: JSON.stringify([
        { id: 'notes', url: `sqlite://${join(liteDir, 'notes.db')}` },
        { id: 'lake', url: `file://${join(liteDir, 'lake')}` },
      ]),
    });
    await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
    // Values a JS Number or Date would change: the largest int8, a 29-digit numeric, microseconds.
    await server.sql.query(`create table ${S}.orders as
      select g::int8 as id,
             (9223372036854775807 - g + 1)::int8 as big,
             ('12345678901234567890.12345678' || (g % 10))::numeric as exact,
             ('2026-01-31 23:59:59.123456+00'::timestamptz - (g || ' minutes')::interval) as at,
             (array['open','shipped','returned'])[1 + g % 3] as status
      from generate_series(1, 260) g`);
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
    await server?.stop();
    if (liteDir) rmSync(liteDir, { recursive: true, force: true });
  });
  afterEach(async () => {
    const watched = current;
    current = null;
    if (watched !== null) await closeChecked(watched);
  });

  /** `allow`: HTTP statuses the sign-in itself meets. */
  async function signedIn(token: string = TOKENS.admin, viewport?: { width: number; height: number }, allow: number[] = []): Promise<WatchedPage> {
    current = await openPage(browser, viewport);
    for (const status of allow) current.allowStatus(status);
    const { page } = current;
    await page.goto(`${server.sluice.url}/`);
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('tab', { name: 'Artifacts' }).waitFor();
    return current;
  }

  async function runSql(watched: WatchedPage, sql: string): Promise<void> {
    const { page } = watched;
    await page.getByRole('tab', { name: 'Query' }).click();
    await page.getByLabel('SQL').fill(sql);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
  }

  /** The text of every cell of the table in `scope`, row by row, without the row number. */
  async function cells(watched: WatchedPage): Promise<string[][]> {
    return watched.page.locator('main:not([hidden]) table tbody tr').evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td')).slice(1).map((td) => td.textContent ?? '')));
  }

  describe('console: sign-in and roles', () => {
    it('redirects / to /console, and a bad token shows the API error sentence', async () => {
      current = await openPage(browser);
      const { page } = current;
      current.allowStatus(401);
      await page.goto(`${server.sluice.url}/`);
      expect(new URL(page.url()).pathname).toBe('/console');
      await page.getByLabel('Token').fill('not-a-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('Send a valid token in the X-Token header');
      expect(await page.getByRole('alert').textContent()).toContain('UNAUTHORIZED');
    });

    it('offers a reader Query and Artifacts only, and keeps the token for the tab across a reload', async () => {
      // The role comes from /api/me: the sign-in meets no 403 (a probe of a route it may not use would).
      const watched = await signedIn(TOKENS.reader);
      const { page } = watched;
      expect(await page.getByRole('tab').allTextContents()).toEqual(['Query', 'History', 'Artifacts']);
      expect(await page.evaluate(() => sessionStorage.getItem('sluice.token'))).toBe(TOKENS.reader);
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
      await page.reload();
      await page.getByRole('tab', { name: 'Query' }).waitFor();
      expect(await page.getByRole('tab').allTextContents()).toEqual(['Query', 'History', 'Artifacts']);
      await page.getByLabel('SQL').fill("SELECT 'the reader was here'");
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Token').waitFor();
      expect(await page.evaluate(() => sessionStorage.getItem('sluice.token'))).toBeNull();
      // Whoever signs in next starts afresh: nothing the reader typed is left behind.
      await page.getByLabel('Token').fill(TOKENS.admin);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('tab', { name: 'Semantic' }).waitFor();
      expect(await page.getByLabel('SQL').inputValue()).not.toContain('the reader was here');
    });
  });

  describe('console: Query', () => {
    it('runs a query: summary, completeness badges, exact values, pages, filter, sort and a download', async () => {
      const watched = await signedIn();
      const { page } = watched;
      await expect.poll(() => page.getByRole('tab', { name: 'Query' }).getAttribute('aria-selected')).toBe('true');
      expect(await page.getByRole('tab').allTextContents()).toEqual(['Query', 'History', 'Artifacts', 'Agent', 'Semantic']);
      await page.getByLabel('Datasource').selectOption('default');
      // Each datasource is shown with its dialect, and its kind where the dialect does not say it.
      expect(await page.getByLabel('Datasource').locator('option').allTextContents()).toEqual([expect.stringMatching(/^default \u00b7 postgresql( \u00b7 \S.*)?$/), 'notes \u00b7 sqlite', 'lake \u00b7 files (duckdb)']);
      // Ctrl+Enter runs as the button does.
      await page.getByLabel('SQL').fill(`SELECT id, big, exact, at, status FROM ${S}.orders ORDER BY id`);
      await page.getByLabel('SQL').press('Control+Enter');
      await page.getByText('Returned 50 of 260 rows. The complete result is available as an artifact.').waitFor();
      const badges = page.getByLabel('Completeness');
      await expect.poll(() => badges.textContent()).toContain('INCOMPLETE');
      const badgeText = (await badges.textContent()) ?? '';
      expect(badgeText).toContain('50 of 260');
      expect(badgeText).toContain('previewRows (set by server)');
      expect(badgeText).toContain('CREATED');
      expect(badgeText).toContain('COMPLETE');
      // The first page of the artifact, values exactly as PostgreSQL has them.
      await page.getByText('Rows 1-50; more follow (nextCursor).').waitFor();
      let rows = await cells(watched);
      expect(rows).toHaveLength(50);
      expect(rows[0]).toEqual(['1', '9223372036854775807', '12345678901234567890.123456781', '2026-01-31T23:58:59.123456Z', 'shipped']);
      await screenshot(page, join(SHOTS, 'query.png'));

      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Rows 51-100; more follow (nextCursor).').waitFor();
      rows = await cells(watched);
      expect(rows[0]![0]).toBe('51');
      expect(rows.at(-1)![0]).toBe('100');
      await page.getByRole('button', { name: 'Previous page' }).click();
      await page.getByText('Rows 1-50; more follow (nextCursor).').waitFor();
      expect((await cells(watched))[0]![0]).toBe('1');

      // Filter status = returned, then sort by id descending (header clicked twice).
      await page.getByLabel('Filter column').selectOption('status');
      await page.getByLabel('Operator').selectOption('eq');
      await page.getByLabel('Value').fill('returned');
      await page.getByRole('button', { name: 'Add filter' }).click();
      await expect.poll(async () => (await cells(watched)).every((r) => r[4] === 'returned')).toBe(true);
      await page.getByRole('button', { name: 'id', exact: true }).click();
      await expect.poll(() => page.locator('th[aria-sort="ascending"]').count()).toBe(1);
      await page.getByRole('button', { name: 'id', exact: true }).click();
      // The header says so at once; the rows follow when the read answers.
      await expect.poll(() => page.locator('th[aria-sort="descending"]').count()).toBe(1);
      await expect.poll(async () => (await cells(watched))[0]?.[0]).toBe('260');
      rows = await cells(watched);
      expect(rows.every((r) => r[4] === 'returned')).toBe(true);
      expect(rows.map((r) => Number(r[0]))).toEqual([...rows.map((r) => Number(r[0]))].sort((a, b) => b - a));
      // 87 rows match (g % 3 = 2): two pages of 50.
      expect(await page.locator('.page-summary').textContent()).toContain('more follow');

      // A column choice: only id and status.
      await page.getByText(/^Columns \(/).click();
      for (const name of ['big', 'exact', 'at']) await page.getByRole('checkbox', { name, exact: true }).uncheck();
      await expect.poll(() => page.locator('main:not([hidden]) table thead th').count()).toBe(3);

      // Download the whole artifact as CSV.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'CSV' }).click()]);
      const csv = readFileSync((await download.path())!, 'utf8').trim().split('\n');
      expect(csv[0]).toBe('id,big,exact,at,status');
      expect(csv).toHaveLength(261);
      expect(csv[1]).toContain('9223372036854775807');
    });

    it('shows an SQL error as the API sentence, and a complete small result without an artifact', async () => {
      const watched = await signedIn();
      watched.allowStatus(400);
      const { page } = watched;
      await runSql(watched, `SELECT nope FROM ${S}.orders`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('SQL_ERROR');
      expect(await alert.textContent()).toContain('column "nope" does not exist');
      await runSql(watched, 'SELECT 1 AS one');
      await page.getByText('Returned all 1 rows.', { exact: false }).waitFor();
      expect(await page.getByLabel('Completeness').textContent()).toContain('SKIPPED');
      expect(await cells(watched)).toEqual([['1']]);
      expect(await page.getByRole('button', { name: 'Next page' }).count()).toBe(0);
    });

    it('shows AI_NOT_CONFIGURED as the API sentence when the server has no model', async () => {
      const watched = await signedIn();
      watched.allowStatus(503);
      const { page } = watched;
      await page.getByRole('tab', { name: 'Agent' }).click();
      await page.getByLabel('Prompt').fill('Anything?');
      await page.getByRole('button', { name: 'Ask' }).click();
      const alert = page.getByRole('region', { name: 'Agent' }).getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('AI_NOT_CONFIGURED');
    });

    // The embedded database cannot interrupt a statement: there the cancel answers when a short sleep ends,
    // and only PostgreSQL is asked whether the backend stopped.
    it('cancels a running query, and the backend stops', async () => {
      const seconds = EMBEDDED ? 3 : 30;
      const watched = await signedIn();
      const { page } = watched;
      await runSql(watched, `SELECT pg_sleep(${seconds}) AS slept`);
      await page.getByRole('status').getByText(/rows so far, .* elapsed/).waitFor();
      const sleeping = () => server.sql.query(`select count(*)::int as n from pg_stat_activity where state = 'active' and query like $1 and pid <> pg_backend_pid()`, [`%pg_sleep(${seconds})%`]);
      if (!EMBEDDED) await expect.poll(async () => (await sleeping())[0]!.n).toBe(1);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByText('The query was cancelled; nothing was kept.').waitFor();
      expect(await page.getByLabel('Completeness').textContent()).toContain('CANCELLED');
      if (!EMBEDDED) await expect.poll(async () => (await sleeping())[0]!.n, { timeout: 10_000 }).toBe(0);
      expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    });

    it('is usable in a 400-pixel window: nothing but the table scrolls sideways', async () => {
      const watched = await signedIn(TOKENS.admin, { width: 400, height: 800 });
      const { page } = watched;
      await runSql(watched, `SELECT * FROM ${S}.orders ORDER BY id`);
      await page.getByText('Rows 1-50; more follow (nextCursor).').waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Rows 51-100; more follow (nextCursor).').waitFor();
    });
  });

  describe('console: Artifacts', () => {
    it('lists the artifacts with the quota meter, opens one and deletes one', async () => {
      const keep = (await server.request('/api/queries', { body: { sql: `SELECT * FROM ${S}.orders ORDER BY id`, materialize: 'always', sessionId: 'console-keep' } })).body.data.artifact.id as string;
      const drop = (await server.request('/api/queries', { body: { sql: `SELECT id, status FROM ${S}.orders WHERE status = 'open'`, materialize: 'always', sessionId: 'console-drop' } })).body.data.artifact.id as string;
      const watched = await signedIn();
      const { page } = watched;
      await page.getByRole('tab', { name: 'Artifacts' }).click();
      await page.getByRole('button', { name: `Open ${keep}` }).waitFor();
      const row = page.locator('tr', { has: page.getByText(keep, { exact: true }) });
      expect(await row.textContent()).toContain('console-keep');
      expect(await row.textContent()).toContain('260');
      await expect.poll(() => page.locator('meter').getAttribute('value')).not.toBe('0');
      expect(await page.getByText(/Quota used: .* of 2\.0 GB/).count()).toBe(1);

      await page.getByRole('button', { name: `Open ${keep}` }).click();
      await page.getByText('Rows 1-50; more follow (nextCursor).').waitFor();
      await screenshot(page, join(SHOTS, 'artifacts.png'));

      await page.getByRole('button', { name: `Delete ${drop}` }).click();
      await expect.poll(() => page.getByRole('button', { name: `Delete ${drop}` }).count()).toBe(0);
      expect((await server.request(`/api/artifacts/${drop}`)).status).toBe(404);
      expect((await server.request(`/api/artifacts/${keep}`)).status).toBe(200);
    });
  });
});
