/**
 * Debian's Chromium driven by playwright-core, for the console's browser
 * tests. Every page records what would mean a broken console: console
 * errors, uncaught exceptions and Content-Security-Policy violations (a
 * listener added before any page script reports each violation as a console
 * error). Tests that provoke an API error on purpose allow the browser's own
 * "Failed to load resource" line for that status, and nothing else.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

export interface WatchedPage {
  page: Page;
  /** What went wrong on the page so far, minus what the test allowed. */
  problems(): string[];
  /** Allows the browser's "Failed to load resource" line for this HTTP status (an API error the test provokes). */
  allowStatus(status: number): void;
}

export async function openPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  const allowed = new Set<number>();
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || '(inline)'}`);
    });
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(message.text());
    if (status !== null && allowed.has(Number(status[1]))) return;
    problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, problems: () => [...problems], allowStatus: (status) => allowed.add(status) };
}

/** Closes the page's context and fails on any console error, page error or CSP violation it met. */
export async function closeChecked(watched: WatchedPage): Promise<void> {
  const problems = watched.problems();
  await watched.page.context().close();
  expect(problems, 'console errors, page errors or CSP violations').toEqual([]);
}

/**
 * Where the tabs' screenshots go: docs/console/ (checked in, shown in the
 * README) when UPDATE_SCREENSHOTS=1, else a temporary folder, so an
 * ordinary test run leaves the checkout as it found it.
 */
export const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs', 'console') : join(tmpdir(), 'sluice-console-screenshots');

export async function screenshot(page: Page, path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
}
