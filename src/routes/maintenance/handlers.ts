/** Handlers of the admins' store maintenance: a collection round on request, and the store check. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import { COLLECTION_BATCH } from '../../artifacts/collector.ts';
import type { ArtifactStore } from '../../artifacts/types.ts';
import { ok } from '../common/envelope.ts';
import { checkStore, runMaintenance } from './routes.ts';

export const STORE_CHECK_DEFAULT_LIMIT = 100;

export function registerMaintenanceRoutes(app: OpenAPIHono<AppEnv>, store: ArtifactStore): void {
  app.openapi(runMaintenance, async (c) => {
    requireRole(c, 'admin');
    const report = await store.collect(COLLECTION_BATCH);
    const data = {
      ran: report.ran,
      blobs: report.blobsRemoved,
      bytes: report.bytesReclaimed,
      tombstones: report.tombstonesPurged,
      expired: report.expired,
      orphans: report.orphansRemoved,
      more: report.more,
    };
    const summary = report.ran
      ? `Released ${data.blobs} blob(s) (${data.bytes} bytes) and ${data.tombstones} tombstone(s).`
      : 'Another replica is collecting right now; nothing was released by this call.';
    return c.json(ok(summary, data), 200);
  });

  app.openapi(checkStore, async (c) => {
    requireRole(c, 'admin');
    const body = c.req.valid('json') ?? {};
    const round = await store.checkStore({ cursor: body.cursor, limit: body.limit ?? STORE_CHECK_DEFAULT_LIMIT });
    const problems = round.missing.length + round.corrupt.length + round.orphaned.length;
    const summary = `${problems === 0 ? 'No problems' : `${problems} problem(s)`} in ${round.checked.blobs} blob(s) and ${round.checked.locations} stored upload(s)${round.nextCursor === null ? '; the walk is over.' : '; continue with nextCursor.'}`;
    return c.json(ok(summary, round), 200);
  });
}
