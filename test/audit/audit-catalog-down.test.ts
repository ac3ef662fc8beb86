/**
 * A whole server whose catalog cannot be reached: audited requests are
 * still answered as if nothing were recorded, the trail's bounded queue
 * drops its oldest entries with one line saying how many, and nothing
 * about the catalog's URL or the callers' tokens reaches the log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startSluice, type Sluice } from '../../src/server.ts';
import { EMBEDDED } from '../helpers/server.ts';

const TOKEN = 'audit-down-token-0001';
const QUEUE = 10;

describe.skipIf(EMBEDDED)('the audit with its catalog down', () => {
  const lines: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-audit-down-'));
  let sluice: Sluice | undefined;
  afterAll(async () => {
    await sluice?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every request, and the overflowing queue says once how many entries it dropped', async () => {
    const config = loadConfig({
      PORT: '0',
      SLUICE_DATA_DIR: dataDir,
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      // Nothing listens on port 1: every attempt to open the catalog fails at once.
      SLUICE_CATALOG_URL: 'postgres://postgres:catalog-secret@127.0.0.1:1/sluice',
      SLUICE_TOKENS: JSON.stringify([{ token: TOKEN, principal: 'down', roles: ['admin'] }]),
    });
    sluice = await startSluice(config, { info: (l) => lines.push(l), error: (l, cause) => lines.push(`${l} ${String((cause as Error | undefined)?.message ?? '')}`) }, { auditQueue: QUEUE });
    const call = (path: string, token: string, body?: unknown) =>
      fetch(`${sluice!.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { 'x-token': token, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

    // A query that keeps nothing needs no catalog: it is answered, and its entry waits in the queue.
    const query = await call('/api/queries', TOKEN, { sql: 'select 41 + 1 as answer', materialize: 'never' });
    expect(query.status).toBe(200);
    expect(((await query.json()) as any).data.preview.rows).toEqual([[42]]);
    const refused = await Promise.all(Array.from({ length: 3 * QUEUE }, () => call('/api/me', 'wrong-token-xyz')));
    expect(refused.map((r) => r.status)).toEqual(Array(3 * QUEUE).fill(401));
    // The admin route reads the catalog: it says it cannot be reached, as every catalog read does.
    const audit = await call('/api/admin/audit', TOKEN);
    expect(audit.status).toBe(503);
    expect(((await audit.json()) as any).errorCode).toBe('STORAGE_UNAVAILABLE');

    const until = Date.now() + 10_000;
    while (!lines.some((l) => l.includes('dropped')) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    const drops = lines.filter((l) => l.includes('dropped'));
    expect(drops).toHaveLength(1);
    const dropped = Number(/dropped the (\d+) oldest/.exec(drops[0]!)?.[1]);
    // 31 entries met a queue of 10 (a line per overflow, never per entry).
    expect(dropped).toBeGreaterThan(0);
    expect(dropped).toBeLessThanOrEqual(3 * QUEUE + 1 - QUEUE);
    await sluice.stop();
    sluice = undefined;
    const text = lines.join('\n');
    expect(text).toContain(`could not be written before stopping: ${QUEUE} entries are lost`);
    for (const secret of ['catalog-secret', TOKEN, 'wrong-token-xyz']) expect(text).not.toContain(secret);
  });
});
