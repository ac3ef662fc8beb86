/**
 * The console in Chromium: signing in asks GET /api/me and meets no 403 (the
 * network log of the sign-in has no failed /api answer); the History tab
 * lists a query the person ran, Re-run runs it again from the Query tab,
 * and Open result opens its artifact in the Artifacts tab.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { CHROMIUM, closeChecked, HAVE_CHROMIUM, launch, openPage, type WatchedPage } from './browser.ts';

const NO_BROWSER = `${CHROMIUM} is not installed`;
const SQL = 'SELECT g AS n, g * 2 AS twice FROM generate_series(1, 120) AS g ORDER BY g';
let server: TestServer;
let browser: Browser;
let current: WatchedPage | null = null;

describe.skipIf(!HAVE_CHROMIUM)(skipNote(!HAVE_CHROMIUM, 'console in Chromium: sign-in and History', NO_BROWSER), () => {
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  afterEach(async () => {
    const watched = current;
    current = null;
    if (watched !== null) await closeChecked(watched);
  });

  /** Signs in and answers every /api call the page made on the way, with its status. */
  async function signIn(token: string): Promise<{ watched: WatchedPage; calls: string[] }> {
    current = await openPage(browser);
    const { page } = current;
    const calls: string[] = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/api/')) calls.push(`${response.request().method()} ${url.pathname} ${response.status()}`);
    });
    await page.goto(`${server.sluice.url}/console`);
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('tab', { name: 'Artifacts' }).waitFor();
    return { watched: current, calls };
  }

  it('signs in with GET /api/me, and no /api answer of the sign-in is a 403 (or any other failure)', async () => {
    for (const token of [TOKENS.reader, TOKENS.analyst, TOKENS.admin]) {
      const { watched, calls } = await signIn(token);
      expect(calls).toContain('GET /api/me 200');
      expect(calls.filter((c) => / 403$/.test(c))).toEqual([]);
      expect(calls.filter((c) => !/ 2\d\d$/.test(c))).toEqual([]);
      await closeChecked(watched);
      current = null;
    }
  });

  it('lists a query in History, re-runs it from there, and opens its result', async () => {
    const { watched } = await signIn(TOKENS.reader);
    const { page } = watched;
    expect(await page.getByRole('tab').allTextContents()).toEqual(['Query', 'History', 'Artifacts']);
    await page.getByRole('tab', { name: 'Query' }).click();
    await page.getByLabel('SQL').fill(SQL);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Returned 50 of 120 rows. The complete result is available as an artifact.').waitFor();

    await page.getByRole('tab', { name: 'History' }).click();
    const rows = page.locator('#panel-History table tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const first = rows.first();
    expect(await first.locator('.sql-snippet').textContent()).toBe(SQL);
    expect(await first.textContent()).toContain('SUCCEEDED');
    expect(await first.textContent()).toContain('120');
    const firstId = (await first.locator('code').textContent()) ?? '';
    expect(firstId).toMatch(/^qry_/);

    // Re-run: the Query tab runs the same statement again, and History then has both runs.
    await page.getByRole('button', { name: `Re-run ${firstId}` }).click();
    await expect.poll(() => page.getByRole('tab', { name: 'Query' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByLabel('SQL').inputValue()).toBe(SQL);
    await page.locator('#panel-Query').getByText('Returned 50 of 120 rows. The complete result is available as an artifact.').waitFor();
    await page.getByRole('tab', { name: 'History' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    const ids = await rows.locator('code').allTextContents();
    expect(ids[1]).toBe(firstId);
    expect(ids[0]).not.toBe(firstId);
    expect(await rows.locator('.sql-snippet').allTextContents()).toEqual([SQL, SQL]);

    // Open result: the first run's artifact, in the Artifacts tab, its rows as the query returned them.
    const history = (await server.request('/api/queries', { token: TOKENS.reader })).body.data.items;
    const artifactId = history.find((i: any) => i.queryId === firstId).artifactId as string;
    expect(artifactId).toMatch(/^art_/);
    await page.getByRole('button', { name: `Open result of ${firstId}` }).click();
    await expect.poll(() => page.getByRole('tab', { name: 'Artifacts' }).getAttribute('aria-selected')).toBe('true');
    const view = page.getByRole('region', { name: `Artifact ${artifactId}` });
    await view.getByText('Rows 1-50; more follow (nextCursor).').waitFor();
    const cells = await view.locator('tbody tr').first().locator('td').allTextContents();
    expect(cells.slice(1)).toEqual(['1', '2']);
  });

  it('shows only the caller\u2019s own queries', async () => {
    await server.request('/api/queries', { token: TOKENS.other, body: { sql: "SELECT 'not for the reader' AS secret" } });
    const { watched } = await signIn(TOKENS.reader);
    const { page } = watched;
    await page.getByRole('tab', { name: 'History' }).click();
    await expect.poll(() => page.locator('#panel-History table tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#panel-History').textContent()).not.toContain('not for the reader');
  });
});
