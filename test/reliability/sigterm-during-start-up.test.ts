/**
 * `npm start`'s entry asked to stop (SIGTERM) while start-up still waits on
 * a shared catalog that never answers: stop() finishes (the process says
 * so and exits 0) instead of waiting on that start-up, and nothing is said
 * of a failed start-up.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { silentCatalogPerTest } from '../helpers/silent-catalog.ts';

const LISTENING = /Sluice listening on (\S+)/;

describe('SIGTERM while start-up waits for the catalog', () => {
  const setUp = silentCatalogPerTest('sluice-sigterm-');

  it('stops cleanly, says so, and does not report a failed start-up', { timeout: 60_000 }, async () => {
    const { dataDir, catalog } = await setUp();
    const env: NodeJS.ProcessEnv = { ...process.env, SLUICE_DATA_DIR: dataDir, PORT: '0', SLUICE_CATALOG_URL: catalog.url, SLUICE_QUERY_WORKERS: '1' };
    if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await waitFor(() => stdout.match(LISTENING)?.[1]);
      // Everything but the catalog is up: start-up is left waiting for the catalog alone.
      await waitFor(async () => {
        const response = await fetch(`${url}/readyz`);
        return response.status === 503 && JSON.stringify((await response.json()).missing) === '["catalog"]' ? true : undefined;
      });
      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);
      // Said only once stop() has finished: a stop() hung on start-up would also end in exit 0, once
      // the catalog's connect attempt gives up and nothing holds the process, but without this line.
      expect(stdout).toContain('Stopped.');
      expect(stderr).not.toContain('Start-up failed');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out');
}
