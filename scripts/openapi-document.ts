/**
 * The OpenAPI document exactly as `GET /openapi.json` serves it, rendered as
 * the text checked in at openapi/openapi.json. Starts a real Sluice
 * in-process (its own temp data dir, an ephemeral port, one worker per pool,
 * and a DATABASE_URL nothing listens on: the document needs no database),
 * asks the app for /openapi.json, and stops it again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startSluice } from '../src/server.ts';
import { quietLogger } from '../src/logger.ts';

/** Where the document is checked in, relative to the repository root. */
export const OPENAPI_FILE = new URL('../openapi/openapi.json', import.meta.url);

/** Pretty-printed as checked in: two-space indent and a trailing newline. */
export function formatDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

export interface ServedDocument {
  /** The body of GET /openapi.json. */
  document: Record<string, unknown>;
  /** Every route the app registered (method and Hono path), middleware excluded. */
  routes: { method: string; path: string }[];
}

/** Fetches the served document from a freshly started server. */
export async function fetchServedDocument(): Promise<ServedDocument> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-openapi-'));
  try {
    const config = loadConfig({
      SLUICE_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      // Port 1 refuses at once: no database is reached, none is needed.
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
      SLUICE_TOKENS: JSON.stringify([{ token: 'openapi-writer-token', principal: 'openapi', roles: ['admin'] }]),
      SLUICE_QUERY_WORKERS: '1',
      SLUICE_READ_WORKERS: '1',
    });
    // Start-up logs (an unreachable-datasource warning) are not wanted here.
    const sluice = await startSluice(config, quietLogger);
    try {
      const response = await sluice.app.request('/openapi.json');
      if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}.`);
      const document = (await response.json()) as Record<string, unknown>;
      const routes = sluice.app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, path: r.path }));
      return { document, routes };
    } finally {
      await sluice.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
