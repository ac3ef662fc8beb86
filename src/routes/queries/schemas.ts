/** Request and response schemas of /api/queries. */
import { z } from '@hono/zod-openapi';
import { MATERIALIZE_MODES, QUERY_STATES } from '../../vocabulary.ts';
import { ArtifactDecision, Completeness, Limits, Preview, SessionId } from '../../contract/results.ts';
import { envelope } from '../common/envelope.ts';

export const QueryRequest = z
  .object({
    datasource: z.string().min(1).max(64).optional().openapi({ example: 'default' }),
    sql: z.string().min(1).max(1_000_000).openapi({ example: 'SELECT * FROM orders ORDER BY id' }),
    params: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).max(1000).optional().openapi({ description: 'Values for $1, $2, ... bound by the database.' }),
    previewRows: z.number().int().min(0).max(500).optional(),
    materialize: z.enum(MATERIALIZE_MODES).optional().openapi({ description: '"auto" keeps an artifact only when the preview is not the whole result; "always" always; "never" reads only the preview (at most the smaller of previewRows and limits.maxRows, plus one row to know whether more exist).' }),
    limits: Limits.optional(),
    waitMs: z.number().int().min(0).max(300_000).optional().openapi({ description: 'How long to wait for the end before answering 202 RUNNING. Default 30000.' }),
    sessionId: SessionId.optional(),
  })
  .strict()
  .openapi('QueryRequest');

export const QueryData = z
  .object({
    queryId: z.string(),
    state: z.enum(QUERY_STATES),
    preview: Preview,
    completeness: Completeness,
    artifact: ArtifactDecision.nullable(),
    progress: z.object({ rowsWritten: z.number().int(), bytesWritten: z.number().int(), elapsedMs: z.number().int() }),
  })
  .openapi('QueryData');

export const QueryEnvelope = envelope('QueryEnvelope', QueryData);

export const PollQuery = z.object({
  waitMs: z.coerce.number().int().min(0).max(300_000).optional().openapi({ param: { name: 'waitMs', in: 'query' }, description: 'Wait up to this long for the query to end.' }),
});

export const HistoryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional().openapi({ param: { name: 'limit', in: 'query' }, description: 'Items per page, 1 to 500. Default 50.' }),
  cursor: z.string().min(1).max(200).optional().openapi({ param: { name: 'cursor', in: 'query' }, description: 'The nextCursor of the previous page.' }),
  state: z.enum(QUERY_STATES).optional().openapi({ param: { name: 'state', in: 'query' }, description: 'Only queries in this state.' }),
  datasource: z.string().min(1).max(64).optional().openapi({ param: { name: 'datasource', in: 'query' }, description: 'Only queries on this datasource (one the caller may use).' }),
});

const HistoryItem = z
  .object({
    queryId: z.string(),
    state: z.enum(QUERY_STATES),
    datasource: z.string(),
    sql: z.string().openapi({ description: 'The statement as it was sent.' }),
    submittedAt: z.string().openapi({ format: 'date-time' }),
    finishedAt: z.string().optional().openapi({ format: 'date-time', description: 'Once the query has ended.' }),
    rows: z.number().int().optional().openapi({ description: 'Once the query has ended: rows read from the database (up to where it stopped, for a failed or cancelled one).' }),
    artifactId: z.string().optional().openapi({ description: 'The artifact it created, if any (it may have expired or been deleted since).' }),
    errorCode: z.string().optional().openapi({ description: 'For a failed query: its error code.' }),
  })
  .openapi('QueryHistoryItem');

export const HistoryEnvelope = envelope('QueryHistoryEnvelope', z.object({ items: z.array(HistoryItem), nextCursor: z.string().nullable() }));
