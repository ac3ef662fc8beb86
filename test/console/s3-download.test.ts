/**
 * The console on a server whose artifact bytes are in S3: a Parquet download
 * answers 307 to a pre-signed link, which the console does not follow (the
 * request carries the person's token, and the page may talk to its own
 * origin only); it says so in a sentence, with no CSP violation, while CSV
 * still downloads through Sluice.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogDatabase, remoteStoreEnv } from '../artifacts/remote-store-setup.ts';
import { PG_SKIP_REASON, PG_URL } from '../catalog/pg-test-schemas.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { CHROMIUM, closeChecked, HAVE_CHROMIUM, launch, openPage } from './browser.ts';

const SKIP = !HAVE_CHROMIUM || PG_SKIP_REASON !== null;
const REASON = HAVE_CHROMIUM ? (PG_SKIP_REASON ?? '') : `${CHROMIUM} is not installed`;
const RUN = randomBytes(4).toString('hex');

describe.skipIf(SKIP)(skipNote(SKIP, 'console downloads with artifact bytes in S3', REASON), () => {
  let s3: TestS3Server;
  let catalogDb: Awaited<ReturnType<typeof createCatalogDatabase>>;
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    s3 = await startS3Server(`sluice-console-${RUN}`);
    catalogDb = await createCatalogDatabase(PG_URL!);
    server = await startTestServer(remoteStoreEnv(catalogDb.url, s3, `console-${RUN}`));
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await catalogDb?.drop();
    await s3?.close();
  });

  it('says why a Parquet download from storage is not followed, and still downloads CSV', async () => {
    const watched = await openPage(browser);
    const { page } = watched;
    await page.goto(`${server.sluice.url}/console`);
    await page.getByLabel('Token').fill(TOKENS.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('SQL').fill('SELECT g AS n FROM generate_series(1, 120) g ORDER BY g');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Returned 50 of 120 rows. The complete result is available as an artifact.').waitFor();

    await page.getByRole('link', { name: 'Parquet' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('served straight from object storage');
    expect(await page.getByRole('alert').textContent()).toContain('choose CSV or JSONL');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8').trim().split('\n');
    expect(csv).toHaveLength(121);
    expect(csv.at(-1)).toBe('120');
    await closeChecked(watched);
  });
});
