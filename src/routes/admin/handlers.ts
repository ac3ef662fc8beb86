/** Handlers of /api/admin: the audit trail, read from the catalog every replica writes to. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { AuditPort } from '../../catalog/ports/audit-port.ts';
import { ok } from '../common/envelope.ts';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor.ts';
import { listAudit } from './routes.ts';
import { AUDIT_PAGE_DEFAULT } from './schemas.ts';

export function registerAdminRoutes(app: OpenAPIHono<AppEnv>, audit: AuditPort): void {
  app.openapi(listAudit, async (c) => {
    requireRole(c, 'admin');
    const q = c.req.valid('query');
    const limit = q.limit ?? AUDIT_PAGE_DEFAULT;
    const after = q.cursor === undefined ? undefined : decodeAuditCursor(q.cursor);
    // One more than a page says whether another follows.
    const found = await audit.listAudit({ principal: q.principal, action: q.action, since: q.since === undefined ? undefined : new Date(q.since), after, limit: limit + 1 });
    const page = found.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor = found.length > limit && last !== undefined ? encodeAuditCursor({ at: last.at, id: last.id }) : null;
    const items = page.map(({ id: _id, ...item }) => item);
    return c.json(ok(`${items.length} audit entr${items.length === 1 ? 'y' : 'ies'}${nextCursor === null ? '' : '; more follow (nextCursor)'}.`, { items, nextCursor }), 200);
  });
}
