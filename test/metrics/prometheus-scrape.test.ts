/**
 * A real Prometheus scrapes a running Sluice: the target is up (the token
 * Prometheus sends as a Bearer credential is accepted, the text parses) and
 * Prometheus' own query API then answers with sluice_http_requests_total.
 * Skipped, saying so, where /usr/bin/prometheus is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const PROMETHEUS = '/usr/bin/prometheus';
const HAVE_PROMETHEUS = existsSync(PROMETHEUS);
const METRICS_TOKEN = 'scrape-token-0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface QueryAnswer {
  status: string;
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

describe.skipIf(!HAVE_PROMETHEUS)(`a real Prometheus scrape (skipped when ${PROMETHEUS} is not installed)`, () => {
  let server: TestServer;
  let dir: string;
  let prometheus: ChildProcess | undefined;
  let api: string;
  let log = '';

  beforeAll(async () => {
    server = await startTestServer({ SLUICE_METRICS_TOKEN: METRICS_TOKEN });
    dir = mkdtempSync(join(tmpdir(), 'sluice-prometheus-'));
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: sluice',
        '    scrape_interval: 1s',
        '    authorization:',
        `      credentials: ${METRICS_TOKEN}`,
        '    static_configs:',
        `      - targets: ['127.0.0.1:${server.sluice.port}']`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}/api/v1`;
    prometheus = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    prometheus.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    prometheus.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  });

  afterAll(async () => {
    if (prometheus !== undefined && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus!.once('exit', r));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function query(expression: string): Promise<QueryAnswer['data']['result']> {
    const response = await fetch(`${api}/query?query=${encodeURIComponent(expression)}`).catch(() => null);
    if (response === null || !response.ok) return [];
    return ((await response.json()) as QueryAnswer).data.result;
  }

  it('finds the target up and sluice_http_requests_total in its query API', async () => {
    await server.request('/healthz', { token: null });
    // Prometheus starts, then scrapes every second: poll its API until the scrape has landed.
    try {
      await expect.poll(async () => (await query('up{job="sluice"}'))[0]?.value[1], { timeout: 60_000, interval: 500 }).toBe('1');
    } catch (error) {
      throw new Error(`Prometheus never saw the target up; its log:\n${log.slice(-2000)}`, { cause: error });
    }
    await expect.poll(async () => (await query('sluice_http_requests_total{route="/metrics",status="200"}')).length, { timeout: 60_000, interval: 500 }).toBeGreaterThan(0);
    const healthz = await query('sluice_http_requests_total{route="/healthz",method="GET",status="200"}');
    expect(Number(healthz[0]?.value[1])).toBeGreaterThanOrEqual(1);
    // The scrapes themselves were let in with the token: none was refused.
    expect(await query('sluice_http_requests_total{route="/metrics",status="401"}')).toEqual([]);
  });
});
