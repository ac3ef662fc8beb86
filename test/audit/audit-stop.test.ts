/**
 * A graceful stop writes what the trail still holds: an entry recorded just
 * before stop() is in the catalog afterwards, though no timer round came.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteCatalog } from '../../src/catalog/sqlite/sqlite-catalog.ts';
import { loadConfig } from '../../src/config.ts';
import { quietLogger } from '../../src/logger.ts';
import { startSluice } from '../../src/server.ts';
import { EMBEDDED } from '../helpers/server.ts';

describe.skipIf(EMBEDDED)('the audit on a graceful stop', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-audit-stop-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes the entries still waiting before the catalog closes', async () => {
    const config = loadConfig({ PORT: '0', SLUICE_DATA_DIR: dataDir, DATABASE_URL: process.env.TEST_DATABASE_URL!, SLUICE_TOKENS: JSON.stringify([{ token: 'audit-stop-token-01', principal: 'p' }]) });
    const sluice = await startSluice(config, quietLogger);
    await sluice.ready;
    const ids = Array.from({ length: 5 }, (_, i) => `stop-${i}`);
    for (const id of ids) expect((await fetch(`${sluice.url}/api/me`, { headers: { 'x-token': 'nope', 'x-request-id': id } })).status).toBe(401);
    await sluice.stop();
    const catalog = openSqliteCatalog({ file: join(dataDir, 'artifacts', 'catalog.sqlite'), principalQuotaBytes: 1, workspaceQuotaBytes: 1 });
    try {
      const written = await catalog.listAudit({ limit: 100, action: 'sign_in' });
      expect(written.map((e) => e.requestId).sort()).toEqual(ids);
    } finally {
      await catalog.close();
    }
  });
});
