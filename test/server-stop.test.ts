/**
 * stop() of a server whose start-up can never finish: its query workers
 * never load, or its shared catalog accepts connections and never answers.
 * Start-up waits for either forever, and stop must not wait for start-up,
 * or a process asked to shut down hangs until it is killed. Every worker
 * thread the server started must have exited once stop resolves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import { silentCatalogPerTest } from './helpers/silent-catalog.ts';

const spawned = vi.hoisted(() => ({ workers: [] as { exited: boolean }[] }));

// Every worker the server starts is recorded with whether it has exited.
vi.mock('../src/runtime/spawn-worker.ts', async (original) => {
  const actual = await original<typeof import('../src/runtime/spawn-worker.ts')>();
  return {
    ...actual,
    spawnWorker: (...args: Parameters<typeof actual.spawnWorker>): Worker => {
      const worker = actual.spawnWorker(...args);
      const record = { exited: false };
      spawned.workers.push(record);
      worker.once('exit', () => (record.exited = true));
      return worker;
    },
  };
});

const { startSluice } = await import('../src/server.ts');

const BROKEN_WORKER = new URL('./fixtures/broken-worker.ts', import.meta.url);
const quiet: Logger = { info: () => undefined, error: () => undefined };

/** Waits until /readyz is 503 naming exactly `missing`: start-up is then waiting on those alone. */
async function waitForReadyz(url: string, missing: string[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/readyz`);
    if (response.status === 503 && JSON.stringify((await response.json()).missing) === JSON.stringify(missing)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/readyz never named only ${missing.join(', ')}`);
}

describe('stop() of a server whose query workers never load', () => {
  let dataDir: string | undefined;
  afterEach(() => {
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it('resolves without waiting for start-up, and leaves no worker thread running', { timeout: 10_000 }, async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sluice-stop-'));
    const config = loadConfig({
      SLUICE_DATA_DIR: dataDir,
      PORT: '0',
      SLUICE_QUERY_WORKERS: '1',
      ...(process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
    });
    const sluice = await startSluice(config, quiet, { queryWorker: BROKEN_WORKER });
    // Not ready while no query worker has loaded (the broken one is retried every second).
    const readyz = await fetch(`${sluice.url}/readyz`);
    expect(readyz.status).toBe(503);
    expect((await readyz.json()).missing).toContain('query workers');
    expect(spawned.workers.length).toBeGreaterThan(0);

    await sluice.stop();
    expect(spawned.workers.filter((w) => !w.exited)).toEqual([]);
  });
});

describe('stop() of a server whose shared catalog never answers', () => {
  const setUp = silentCatalogPerTest('sluice-stop-');

  it('resolves without waiting for the catalog to open, and leaves no worker thread running', { timeout: 40_000 }, async () => {
    const { dataDir, catalog } = await setUp();
    const config = loadConfig({
      SLUICE_DATA_DIR: dataDir,
      PORT: '0',
      SLUICE_QUERY_WORKERS: '1',
      SLUICE_CATALOG_URL: catalog.url,
      ...(process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
    });
    const before = spawned.workers.length;
    const sluice = await startSluice(config, quiet);
    // Everything but the catalog comes up, so start-up is left waiting for the catalog alone.
    await waitForReadyz(sluice.url, ['catalog']);

    let timer: ReturnType<typeof setTimeout> | undefined;
    const stillWaiting = new Promise((resolve) => (timer = setTimeout(() => resolve('still waiting'), 15_000)));
    const outcome = await Promise.race([sluice.stop().then(() => 'stopped'), stillWaiting]);
    clearTimeout(timer);
    expect(outcome).toBe('stopped');
    expect(spawned.workers.slice(before).filter((w) => !w.exited)).toEqual([]);
  });
});
