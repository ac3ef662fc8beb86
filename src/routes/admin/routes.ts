/** Route definitions of /api/admin. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { tagged } from '../common/tags.ts';
import { AuditEnvelope, AuditQuery } from './schemas.ts';

export const listAudit = createRoute({
  operationId: 'listAudit',
  method: 'get',
  path: '/api/admin/audit',
  tags: tagged('Admin'),
  summary: 'The audit trail, newest first (admin role)',
  description:
    'Every query, read, aggregate, download, delete, agent, chat and semantic request, and every refused sign-in, as every replica recorded it. Entries are written in batches off the request path, so the newest may show a moment later; a query\u2019s entry is written when it ends, a streamed download\u2019s when its body ended (with the bytes sent; failed when the client cut it off). Kept SLUICE_AUDIT_RETENTION_DAYS days (default 90).',
  request: { query: AuditQuery },
  responses: { 200: jsonResponse(AuditEnvelope, 'A page of entries.'), ...errorResponses('INVALID_CURSOR', 'STORAGE_UNAVAILABLE') },
});
