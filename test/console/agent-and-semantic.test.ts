/**
 * The console's Agent and Semantic tabs in Chromium against a whole Sluice,
 * the model faked with msw (it intercepts the server's outgoing fetch, the
 * server running in this process): an agent run whose transcript opens step
 * by step and whose artifact link opens the artifact, AI_NOT_CONFIGURED-free
 * streamed chat whose SQL block goes to the Query tab, and a semantic merge
 * run, saved as a visualization and drawn by the server. Screenshots of both
 * tabs go to docs/console/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { LLM_BASE, startFakeLlm, type FakeLlm } from '../ai/llm-fake.ts';
import { CHROMIUM, closeChecked, HAVE_CHROMIUM, launch, openPage, screenshot, SHOTS, type WatchedPage } from './browser.ts';

const S = 'consoleai';
const NO_BROWSER = `${CHROMIUM} is not installed`;
const MODEL = `
explores:
  - name: sales
    label: Sales
    description: One row per sale, with its region and channel.
    datasource: default
    table: ${S}.sales
    dimensions:
      - { name: region, type: string }
      - { name: channel, type: string }
    metrics:
      - { name: revenue, type: sum, sql: amount, label: Revenue }
      - { name: sale_count, type: count }
  - name: returns
    label: Returns
    datasource: default
    table: ${S}.returns
    dimensions:
      - { name: region, type: string }
    metrics:
      - { name: refunded, type: sum, sql: amount }
`;

let server: TestServer;
let llm: FakeLlm;
let browser: Browser;
let modelsDir: string;
let current: WatchedPage | null = null;

describe.skipIf(!HAVE_CHROMIUM)(skipNote(!HAVE_CHROMIUM, 'console in Chromium: Agent, Semantic', NO_BROWSER), () => {
  beforeAll(async () => {
    llm = startFakeLlm();
    modelsDir = mkdtempSync(join(tmpdir(), 'sluice-console-models-'));
    writeFileSync(join(modelsDir, 'console.yml'), MODEL);
    server = await startTestServer({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: LLM_BASE, SLUICE_AI_MODEL: 'fake-model', SLUICE_MODELS_DIR: modelsDir });
    await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
    await server.sql.query(`create table ${S}.sales as
      select g::int8 as id, (array['north','south','east','west'])[1 + g % 4] as region, (array['web','store'])[1 + g % 2] as channel, (g * 1.25)::numeric(12,2) as amount
      from generate_series(1, 400) g`);
    await server.sql.query(`create table ${S}.returns as
      select g::int8 as id, (array['north','south','east','west'])[1 + g % 4] as region, (g * 60.5)::numeric(12,2) as amount
      from generate_series(1, 40) g`);
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
    await server?.stop();
    llm?.close();
    if (modelsDir) rmSync(modelsDir, { recursive: true, force: true });
  });
  afterEach(async () => {
    const watched = current;
    current = null;
    if (watched !== null) await closeChecked(watched);
  });

  async function signedIn(): Promise<WatchedPage> {
    current = await openPage(browser);
    const { page } = current;
    await page.goto(`${server.sluice.url}/console`);
    await page.getByLabel('Token').fill(TOKENS.analyst);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('tab', { name: 'Agent' }).waitFor();
    return current;
  }

  describe('console: Agent', () => {
    it('asks the agent: answer, transcript steps with tool input and output, and the artifact link', async () => {
      llm.script(
        { toolCalls: [{ name: 'run_select', arguments: JSON.stringify({ sql: `select region, amount from ${S}.sales order by id`, keep_full_result: true }) }] },
        { content: 'The north region has 100 sales; the full list is in the artifact.' },
      );
      const watched = await signedIn();
      const { page } = watched;
      await page.getByRole('tab', { name: 'Agent' }).click();
      await page.getByLabel('Prompt').fill('How many sales per region?');
      await page.getByRole('button', { name: 'Ask' }).click();
      await page.locator('p.answer').getByText('The north region has 100 sales; the full list is in the artifact.').waitFor();
      expect(llm.requests[0]!.body.messages.at(-1).content).toContain('How many sales per region?');
      const steps = page.getByRole('list', { name: 'Transcript' }).locator('details');
      expect(await steps.count()).toBe(3);
      const tool = steps.nth(1);
      expect(await tool.locator('summary').textContent()).toContain('tool run_select');
      expect(await tool.getAttribute('open')).toBeNull();
      await tool.locator('summary').click();
      const body = (await tool.textContent()) ?? '';
      expect(body).toContain(`select region, amount from ${S}.sales order by id`);
      expect(body).toContain('<tool_output untrusted="true">');
      expect(body).toContain('"totalRows":400');
      const links = page.getByRole('list', { name: 'Artifacts the agent made' }).getByRole('link');
      expect(await links.count()).toBe(1);
      const artifactId = (await links.first().textContent())!;
      expect(artifactId).toMatch(/^art_/);
      await screenshot(page, join(SHOTS, 'agent.png'));

      await links.first().click();
      await expect.poll(() => page.getByRole('tab', { name: 'Artifacts' }).getAttribute('aria-selected')).toBe('true');
      await page.getByRole('region', { name: `Artifact ${artifactId}` }).getByText('Rows 1-50; more follow (nextCursor).').waitFor();
    });

    it('streams a chat reply whose SQL block is labelled and opens in the Query tab', async () => {
      llm.streamPieces(['Count them with:\n', '```sql\nSELECT count(*) ', `FROM ${S}.sales\n\`\`\``], 50);
      const watched = await signedIn();
      const { page } = watched;
      await page.getByRole('tab', { name: 'Agent' }).click();
      await page.getByLabel('Message').fill('How do I count sales?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('button', { name: 'Open in Query' }).waitFor();
      const chat = page.getByRole('region', { name: 'Chat' });
      expect(await chat.locator('figure').textContent()).toContain('select');
      await page.getByRole('button', { name: 'Open in Query' }).click();
      await expect.poll(() => page.getByLabel('SQL').inputValue()).toBe(`SELECT count(*) FROM ${S}.sales`);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByText('Returned all 1 rows.').waitFor();
    });
  });

  describe('console: Semantic', () => {
    it('runs a merge of two explores and draws it as a saved visualization', async () => {
      const watched = await signedIn();
      const { page } = watched;
      await page.getByRole('tab', { name: 'Semantic' }).click();
      await page.getByLabel('Explore', { exact: true }).selectOption('sales');
      // Nothing picked: the API's validation sentence, not a blank result.
      watched.allowStatus(400);
      watched.allowStatus(422);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByRole('tabpanel', { name: 'Semantic' }).getByRole('alert').waitFor();
      expect(await page.getByRole('tabpanel', { name: 'Semantic' }).getByRole('alert').textContent()).toContain('SEMANTIC_VALIDATION_ERROR');
      await page.getByRole('group', { name: 'First explore dimensions' }).getByRole('checkbox', { name: 'sales.region' }).check();
      await page.getByRole('group', { name: 'First explore metrics' }).getByRole('checkbox', { name: 'sales.revenue' }).check();
      await page.getByLabel('Merge with').selectOption('returns');
      await page.getByRole('group', { name: 'Second explore dimensions' }).getByRole('checkbox', { name: 'returns.region' }).check();
      await page.getByRole('group', { name: 'Second explore metrics' }).getByRole('checkbox', { name: 'returns.refunded' }).check();
      await page.getByLabel('Join sales.region with').selectOption('returns.region');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByText('Returned all 4 rows.').waitFor();
      const rows = await page.locator('main:not([hidden]) table tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).slice(1).map((td) => td.textContent)));
      // Ground truth from the database: revenue per region, and refunds per region.
      const truth = await server.sql.query(`select s.region, s.revenue::text, r.refunded::text from
        (select region, sum(amount) as revenue from ${S}.sales group by region) s
        left join (select region, sum(amount) as refunded from ${S}.returns group by region) r using (region) order by region`);
      const byRegion = new Map(rows.map((r) => [r.find((v) => truth.some((t) => t.region === v)), r]));
      for (const t of truth) {
        expect(byRegion.get(t.region), t.region).toEqual(expect.arrayContaining([t.revenue, t.refunded]));
      }

      await page.getByLabel('Chart').selectOption('bar');
      await page.getByLabel('Title').fill('Revenue and refunds by region');
      await page.getByRole('button', { name: 'Save visualization' }).click();
      const chart = page.getByRole('img', { name: /^Chart of visualization / });
      await chart.waitFor();
      await expect.poll(() => chart.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
      const id = ((await chart.getAttribute('alt')) ?? '').replace('Chart of visualization ', '');
      const saved = await server.request(`/api/semantic/visualizations/${id}`, { token: TOKENS.analyst });
      expect(saved.status).toBe(200);
      expect(saved.body.data.title).toBe('Revenue and refunds by region');
      // The list of saved visualizations below is read again and names it.
      await page.getByRole('region', { name: 'Saved visualizations' }).getByRole('button', { name: `Delete visualization ${id}` }).waitFor();
      await screenshot(page, join(SHOTS, 'semantic.png'));
    });
  });
});
