/**
 * Handlers of /api/artifacts: describe, list, page, aggregate, download and
 * delete. Every one re-authorizes the caller against the artifact.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { CursorCodec } from '../../artifacts/cursor.ts';
import { readArtifactPage } from '../../artifacts/read-page.ts';
import type { ArtifactMeta, ArtifactStore } from '../../artifacts/types.ts';
import { jsonText, ok, okJsonWithRows } from '../common/envelope.ts';
import { noteAudit } from '../common/audit-requests.ts';
import { countSentBytes } from '../common/sent-bytes.ts';
import { aggregateArtifact, deleteArtifact, downloadArtifact, getArtifact, listArtifacts, readArtifact } from './routes.ts';
import { ReadEnvelope } from './schemas.ts';

const DEFAULT_PAGE = 100;

export function artifactView(meta: ArtifactMeta, store: ArtifactStore) {
  return {
    id: meta.id,
    state: meta.state,
    sessionId: meta.sessionId,
    sql: meta.sql,
    datasource: meta.datasource,
    columns: meta.columns.map((c) => ({ name: c.name, type: c.type })),
    rowCount: meta.rowCount,
    sizeBytes: meta.sizeBytes,
    coverage: meta.coverage,
    boundedBy: meta.boundedBy,
    createdAt: meta.createdAt,
    expiresAt: meta.expiresAt,
    capabilities: store.capabilities,
  };
}

export function registerArtifactRoutes(app: OpenAPIHono<AppEnv>, store: ArtifactStore, cursors: CursorCodec): void {
  app.openapi(listArtifacts, async (c) => {
    const principal = requireRole(c, 'reader');
    const q = c.req.valid('query');
    const page = await store.list(principal.id, q.sessionId, q.cursor, q.limit ?? 100);
    const data = { artifacts: page.artifacts.map((a) => artifactView(a, store)), nextCursor: page.nextCursor };
    return c.json(ok(`${data.artifacts.length} artifact(s).`, data), 200);
  });

  app.openapi(getArtifact, async (c) => {
    const principal = requireRole(c, 'reader');
    const meta = await store.get(principal.id, c.req.valid('param').id);
    return c.json(ok(`Artifact with ${meta.rowCount} rows (${meta.coverage}).`, artifactView(meta, store)), 200);
  });

  app.openapi(readArtifact, async (c) => {
    const principal = requireRole(c, 'reader');
    const id = c.req.valid('param').id;
    const body = c.req.valid('json');
    const page = await readArtifactPage(store, cursors, principal.id, id, { ...body, limit: body.limit ?? DEFAULT_PAGE });
    const count = page.rowsJson.length;
    noteAudit(c, { rows: count });
    const { offset, nextCursor } = page;
    const summary = `Rows ${offset + 1}-${offset + count}${page.more ? '; more follow (nextCursor)' : '; no more rows'}.`;
    // The rows are JSON text already (ReadPage.rowsJson): joined into the answer, not parsed and written again.
    const text = okJsonWithRows(count === 0 ? 'No rows match.' : summary, { columns: page.columns, rows: page.rowsJson, nextCursor });
    return jsonText(c, ReadEnvelope, text);
  });

  app.openapi(deleteArtifact, async (c) => {
    const principal = requireRole(c, 'reader');
    const id = c.req.valid('param').id;
    await store.delete(principal.id, id);
    return c.json(ok(`Artifact ${id} is deleted.`, { id, deleted: true }), 200);
  });

  app.openapi(aggregateArtifact, async (c) => {
    const principal = requireRole(c, 'reader');
    const body = c.req.valid('json');
    const result = await store.aggregate(principal.id, c.req.valid('param').id, { ...body, limit: body.limit ?? 1000 });
    noteAudit(c, { rows: result.rows.length });
    const summary = `${result.rows.length} group(s)${result.more ? '; more exist past the limit' : ''}.`;
    return c.json(ok(summary, { columns: result.columns, rows: result.rows, truncated: result.more }), 200);
  });

  app.openapi(downloadArtifact, async (c) => {
    const principal = requireRole(c, 'reader');
    const file = await store.download(principal.id, c.req.valid('param').id, c.req.valid('query').format);
    if (file.kind === 'redirect') {
      c.header('cache-control', 'no-store');
      return c.redirect(file.url, 307);
    }
    const headers = { 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.fileName}"` };
    // The audit records the bytes that left, so its entry waits for the body's end.
    const { body, sent } = countSentBytes(file.body);
    noteAudit(c, { sent });
    return c.body(body, 200, headers);
  });
}
