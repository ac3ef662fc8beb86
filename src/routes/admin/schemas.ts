/** Request and response schemas of /api/admin: the audit trail. */
import { z } from '@hono/zod-openapi';
import { ERROR_CODES } from '../../errors.ts';
import { AUDIT_ACTIONS, AUDIT_OUTCOMES } from '../../vocabulary.ts';
import { envelope } from '../common/envelope.ts';

export const AUDIT_PAGE_DEFAULT = 100;
export const AUDIT_PAGE_MAX = 500;

export const AuditQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(AUDIT_PAGE_MAX)
    .optional()
    .openapi({ description: `Entries per page, 1..${AUDIT_PAGE_MAX} (default ${AUDIT_PAGE_DEFAULT}).` }),
  cursor: z.string().min(1).max(512).optional().openapi({ description: 'The nextCursor of the previous page, as given.' }),
  principal: z.string().min(1).max(300).optional().openapi({ description: 'Only this principal\u2019s entries.' }),
  action: z.enum(AUDIT_ACTIONS).optional(),
  since: z.string().datetime({ offset: true }).optional().openapi({ description: 'Only entries at or after this instant (ISO 8601).' }),
});

export const AuditItem = z
  .object({
    at: z.string().openapi({ description: 'When the request arrived (ISO 8601); a query\u2019s entry is written when it ends.' }),
    principal: z.string().nullable().openapi({ description: 'Null for a refused sign-in.' }),
    action: z.enum(AUDIT_ACTIONS),
    route: z.string().openapi({ description: 'The route template (`/api/artifacts/:id/read`), never the concrete path.' }),
    datasource: z.string().nullable(),
    sql: z.string().nullable().openapi({ description: 'A query\u2019s SQL text as it ran (cut past 10000 characters).' }),
    artifactId: z.string().nullable(),
    outcome: z.enum(AUDIT_OUTCOMES).openapi({
      description: '`ok`; `refused`: answered without doing the work (a 4xx: identity, rights, input, quota, limits); `failed`: the work was attempted and did not complete (SQL_ERROR, QUERY_TIMEOUT, QUERY_CANCELLED, every 5xx).',
    }),
    errorCode: z.enum(ERROR_CODES).nullable(),
    rows: z.number().int().nullable().openapi({ description: 'A query\u2019s rows read from the database; the rows a page or aggregate answered.' }),
    bytes: z.number().int().nullable().openapi({ description: 'A query\u2019s bytes (as CSV text, what the byte cap measures).' }),
    durationMs: z.number().int().nullable(),
    requestId: z.string().nullable().openapi({ description: 'The X-Request-Id of the request; an agent\u2019s or semantic request\u2019s queries share it.' }),
  })
  .openapi('AuditEntry');

export const AuditPage = z.object({
  items: z.array(AuditItem),
  nextCursor: z.string().nullable().openapi({ description: 'Null on the last page.' }),
});

export const AuditEnvelope = envelope('AuditEnvelope', AuditPage);
