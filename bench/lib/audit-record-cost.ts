/**
 * What the audit trail costs one request, measured apart from the HTTP
 * load (which a busy machine drowns): the time `record()` takes on the
 * request's path, and the time per entry of writing batches to a real
 * SQLite catalog, which happens off it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditTrail } from '../../src/audit/audit-trail.ts';
import { openSqliteCatalog } from '../../src/catalog/sqlite/sqlite-catalog.ts';
import { quietLogger } from '../../src/logger.ts';

export async function auditRecordCost(entries = 100_000): Promise<{ recordUs: number; flushUs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-audit-'));
  const catalog = openSqliteCatalog({ file: join(dir, 'catalog.sqlite'), principalQuotaBytes: 1e12, workspaceQuotaBytes: 1e12 });
  try {
    const trail = new AuditTrail(catalog, quietLogger, { maxQueued: entries, flushMs: 3_600_000 });
    const at = new Date().toISOString();
    const t0 = performance.now();
    for (let i = 0; i < entries; i++) {
      trail.record({ at, principal: 'bench', action: 'read', route: '/api/artifacts/:id/read', datasource: null, sql: null, artifactId: 'art_0123456789abcdef', outcome: 'ok', errorCode: null, rows: 100, bytes: null, durationMs: 3, requestId: `req-${i}` });
    }
    const recorded = performance.now();
    await trail.flush();
    const flushed = performance.now();
    return { recordUs: ((recorded - t0) * 1000) / entries, flushUs: ((flushed - recorded) * 1000) / entries };
  } finally {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
