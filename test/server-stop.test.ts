/**
 * stop() of a server whose query workers can never load: start-up waits for
 * one forever, and stop must not wait for start-up, or a process asked to
 * shut down hangs until it is killed. Every worker thread the server
 * started must have exited once stop resolves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';

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
