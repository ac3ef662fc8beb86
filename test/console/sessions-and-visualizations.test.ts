/**
 * The console's routes for sessions, saved visualizations and maintenance,
 * in Chromium against a whole Sluice: the Artifacts tab lists the caller's
 * sessions, narrows the artifacts and the usage meter to the one chosen, and
 * copies ticked artifacts to a new session; the Semantic tab lists the saved
 * visualizations a page at a time and deletes one; an admin runs a
 * maintenance round and sees what it released, a reader is not offered one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { formatBytes } from '../../console/format.ts';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { withCatalog } from '../routes/sessions/bundle-tools.ts';
import { CHROMIUM, closeChecked, HAVE_CHROMIUM, launch, openPage, type WatchedPage } from './browser.ts';

const S = 'consolesess';
const NO_BROWSER = `${CHROMIUM} is not installed`;
const MODEL = `
explores:
  - name: sold
    datasource: default
    table: ${S}.sold
    dimensions:
      - { name: region, type: string }
    metrics:
      - { name: total, type: sum, sql: amount }
`;
const INTENT = { type: 'metric', query: { explore: 'sold', dimensions: ['sold.region'], metrics: ['sold.total'] } };

let server: TestServer;
let browser: Browser;
let modelsDir: string;
let current: WatchedPage | null = null;

async function artifact(sql: string, sessionId: string, token: string): Promise<{ id: string; sizeBytes: number }> {
  const r = await server.request('/api/queries', { body: { sql, materialize: 'always', sessionId }, token });
  expect(r.body.data?.artifact?.decision).toBe('CREATED');
  return { id: r.body.data.artifact.id, sizeBytes: r.body.data.artifact.sizeBytes };
}

describe.skipIf(!HAVE_CHROMIUM)(skipNote(!HAVE_CHROMIUM, 'console in Chromium: sessions, visualizations, maintenance', NO_BROWSER), () => {
  beforeAll(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'sluice-console-sessions-'));
    writeFileSync(join(modelsDir, 'sold.yml'), MODEL);
    server = await startTestServer({ SLUICE_MODELS_DIR: modelsDir });
    await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
    await server.sql.query(`create table ${S}.sold as select g::int8 as id, (array['north','south'])[1 + g % 2] as region, g::numeric(12,2) as amount from generate_series(1, 40) g`);
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
    await server?.stop();
    if (modelsDir) rmSync(modelsDir, { recursive: true, force: true });
  });
  afterEach(async () => {
    const watched = current;
    current = null;
    if (watched !== null) await closeChecked(watched);
  });

  /** Signs in, opens `tab`, and keeps every /api answer the page got, with its status. */
  async function signIn(token: string, tab: string): Promise<{ watched: WatchedPage; calls: string[] }> {
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
    await page.getByRole('tab', { name: tab }).click();
    return { watched: current, calls };
  }

  it('lists the sessions, and choosing one shows its artifacts and its usage', async () => {
    const a1 = await artifact('select g::int8 as id from generate_series(1, 90) g', 'desk-a', TOKENS.reader);
    const a2 = await artifact(`select 'x' || g as t from generate_series(1, 30) g`, 'desk-a', TOKENS.reader);
    const b1 = await artifact('select g::int4 as n from generate_series(1, 7) g', 'desk-b', TOKENS.reader);
    await artifact('select 1::int4 as secret from generate_series(1, 3)', 'desk-hidden', TOKENS.other);
    const { watched, calls } = await signIn(TOKENS.reader, 'Artifacts');
    const { page } = watched;
    const sessions = page.getByRole('region', { name: 'Sessions' });
    await sessions.getByText('desk-b', { exact: true }).waitFor();
    const rowOf = (id: string) => sessions.locator('tr', { has: page.getByText(id, { exact: true }) });
    const deskA = (await rowOf('desk-a').locator('td').allTextContents()).slice(0, 3);
    expect(deskA).toEqual(['desk-a', '2', formatBytes(a1.sizeBytes + a2.sizeBytes)]);
    expect(await sessions.textContent()).not.toContain('desk-hidden');
    expect(calls).toContain('GET /api/sessions 200');
    expect(calls.filter((c) => !/ 2\d\d$/.test(c))).toEqual([]);

    await page.getByRole('button', { name: 'Show session desk-b' }).click();
    await expect.poll(() => page.getByRole('button', { name: `Open ${a1.id}` }).count()).toBe(0);
    await page.getByRole('button', { name: `Open ${b1.id}` }).waitFor();
    await page.getByText(`Session desk-b: ${formatBytes(b1.sizeBytes)}, 1 artifacts`).waitFor();

    await page.getByRole('button', { name: 'Show session desk-a' }).click();
    await page.getByText(`Session desk-a: ${formatBytes(a1.sizeBytes + a2.sizeBytes)}, 2 artifacts`).waitFor();
    await page.getByRole('button', { name: `Open ${a2.id}` }).waitFor();
    expect(await page.getByRole('button', { name: `Open ${b1.id}` }).count()).toBe(0);

    await page.getByRole('button', { name: 'All sessions' }).click();
    await page.getByRole('button', { name: `Open ${b1.id}` }).waitFor();
    expect(await page.getByText(/^Session desk-/).count()).toBe(0);
  });

  it('copies two ticked artifacts to a new session and shows them there', async () => {
    const c1 = await artifact('select g::int8 as k from generate_series(1, 11) g', 'copy-from', TOKENS.reader);
    const c2 = await artifact('select g::int8 as k, g * 3 as t from generate_series(1, 12) g', 'copy-from', TOKENS.reader);
    await artifact('select 5::int4 as untouched', 'copy-from', TOKENS.reader);
    const { watched } = await signIn(TOKENS.reader, 'Artifacts');
    const { page } = watched;
    await page.getByRole('button', { name: 'Show session copy-from' }).click();
    await page.getByText('Session copy-from:', { exact: false }).waitFor();
    await page.getByRole('checkbox', { name: `Select ${c1.id}` }).check();
    await page.getByRole('checkbox', { name: `Select ${c2.id}` }).check();
    await page.getByLabel('Copy to session').fill('copy-to');
    await page.getByRole('button', { name: 'Copy selected' }).click();
    await page.getByText(`Session copy-to: ${formatBytes(c1.sizeBytes + c2.sizeBytes)}, 2 artifacts`).waitFor();

    const copied = (await server.request('/api/artifacts?sessionId=copy-to', { token: TOKENS.reader })).body.data.artifacts as { id: string; sql: string }[];
    expect(copied.map((a) => a.sql).sort()).toEqual([
      'select g::int8 as k from generate_series(1, 11) g',
      'select g::int8 as k, g * 3 as t from generate_series(1, 12) g',
    ]);
    for (const a of copied) await page.getByRole('button', { name: `Open ${a.id}` }).waitFor();
    expect(await page.getByRole('button', { name: `Open ${c1.id}` }).count()).toBe(0);
    const row = page.getByRole('region', { name: 'Sessions' }).locator('tr', { has: page.getByText('copy-to', { exact: true }) });
    expect((await row.locator('td').allTextContents()).slice(0, 2)).toEqual(['copy-to', '2']);
  });

  it('lists the saved visualizations a page at a time and deletes one', async () => {
    const made: string[] = [];
    for (let i = 1; i <= 21; i++) {
      const r = await server.request('/api/semantic/visualizations', { token: TOKENS.analyst, body: { intent: INTENT, chart: { type: 'bar', x: 'sold.region' }, title: `Chart number ${i}` } });
      expect(r.status).toBe(200);
      made.push(r.body.data.id);
    }
    await server.request('/api/semantic/visualizations', { token: TOKENS.other, body: { intent: INTENT, chart: { type: 'bar' }, title: 'Not the analyst\u2019s' } });
    const { watched } = await signIn(TOKENS.analyst, 'Semantic');
    const { page } = watched;
    const list = page.getByRole('region', { name: 'Saved visualizations' });
    const rows = list.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(20);
    await list.getByRole('button', { name: 'More' }).click();
    await expect.poll(() => rows.count()).toBe(21);
    expect(await list.getByRole('button', { name: 'More' }).count()).toBe(0);
    expect(await list.textContent()).not.toContain('Not the analyst');
    const titles = await rows.locator('td:first-child').allTextContents();
    for (let i = 1; i <= 21; i++) expect(titles.some((t) => t.startsWith(`Chart number ${i} `))).toBe(true);

    const gone = made[4]!;
    await list.getByRole('button', { name: `Delete visualization ${gone}` }).click();
    await expect.poll(() => rows.count()).toBe(20);
    expect(await list.getByText(gone).count()).toBe(0);
    const left = (await server.request('/api/semantic/visualizations?limit=500', { token: TOKENS.analyst })).body.data.visualizations as { id: string }[];
    expect(left.map((v) => v.id)).not.toContain(gone);
    expect(left).toHaveLength(20);
  });

  it('offers an admin a maintenance round and shows what it released; a reader is not offered one', async () => {
    const doomed = await artifact('select g::int8 as id from generate_series(1, 64) g', 'to-collect', TOKENS.admin);
    expect((await server.request('/api/sessions/to-collect', { method: 'DELETE', token: TOKENS.admin })).status).toBe(200);
    // Released long ago, as far as the grace period can tell.
    withCatalog(server, (db) => db.prepare(`UPDATE blobs SET released_at = '2000-01-01T00:00:00.000Z' WHERE refs <= 0`).run());
    const { watched } = await signIn(TOKENS.admin, 'Artifacts');
    const { page } = watched;
    await page.getByRole('button', { name: 'Run maintenance now' }).click();
    const status = page.getByRole('region', { name: 'Maintenance' }).getByRole('status');
    await expect.poll(() => status.textContent()).toMatch(new RegExp(`^Released 1 blobs \\(${formatBytes(doomed.sizeBytes).replace('.', '\\.')}\\), \\d+ tombstones`));
    await page.getByRole('button', { name: 'Run maintenance now' }).click();
    await expect.poll(() => status.textContent()).toMatch(/^Released 0 blobs \(0 B\)/);
    await closeChecked(watched);
    current = null;

    const reader = await signIn(TOKENS.reader, 'Artifacts');
    await reader.watched.page.getByRole('region', { name: 'Sessions' }).waitFor();
    expect(await reader.watched.page.getByRole('button', { name: 'Run maintenance now' }).count()).toBe(0);
    expect(reader.calls.some((c) => c.includes('/api/admin/'))).toBe(false);
  });
});
