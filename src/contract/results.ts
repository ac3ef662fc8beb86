/**
 * The shapes of a query's answer that every surface shares: the HTTP routes,
 * the AI tools and the MCP tools all say a column, a completeness and an
 * artifact decision the same way, so they are defined once, here.
 */
import { z } from '@hono/zod-openapi';
import { CAPS, COMPLETENESS_STATUSES, COVERAGES, DECISIONS, LIMIT_SOURCES } from '../vocabulary.ts';

export const Column = z.object({ name: z.string(), type: z.string().openapi({ example: 'int8' }) }).openapi('Column');

export const Cap = z.enum(CAPS);

export const Completeness = z
  .object({
    status: z.enum(COMPLETENESS_STATUSES),
    returnedRows: z.number().int(),
    totalRows: z.number().int().nullable().openapi({ description: 'Null while unknown (still running, or a cap stopped the result).' }),
    boundedBy: Cap.nullable().openapi({ description: 'The limit that made the result incomplete.' }),
    limitSetBy: z.enum(LIMIT_SOURCES).nullable().openapi({ description: 'Who set the limit named in boundedBy.' }),
  })
  .openapi('Completeness');

export const SessionId = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/).openapi({ example: 'default' });

export const Limits = z
  .object({
    maxRows: z.number().int().min(1).optional(),
    maxBytes: z.number().int().min(1).optional().openapi({ description: 'Bytes of result data the artifact may hold, measured as PostgreSQL\'s `COPY … (FORMAT csv)` writes the rows.' }),
    maxDurationMs: z.number().int().min(1).optional(),
  })
  .strict()
  .openapi('Limits', { description: 'Lower the server caps for this query; higher values are ignored.' });

export const ArtifactDecision = z
  .object({
    decision: z.enum(DECISIONS),
    reason: z.string().optional().openapi({ description: 'A stable code, for every decision but CREATED (PREVIEW_COMPLETE, MATERIALIZE_NEVER, QUOTA_EXCEEDED, QUERY_CANCELLED, or the error code).' }),
    message: z.string().optional(),
    coverage: z.enum(COVERAGES).optional(),
    id: z.string().optional(),
    format: z.literal('parquet').optional(),
    rowCount: z.number().int().optional(),
    sizeBytes: z.number().int().optional(),
    expiresAt: z.string().optional(),
  })
  .openapi('ArtifactDecision');
