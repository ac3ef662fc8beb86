/**
 * Aggregates over a stored result and its download, in three formats. Both
 * are re-authorized against the caller like every read.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { ArtifactStore } from '../../artifacts/types.ts';
import { DOWNLOAD_FORMATS } from '../../vocabulary.ts';
import { AggregateMetric, FilterSchema, SortSchema } from '../../contract/reads.ts';
import { Column } from '../../contract/results.ts';
import { envelope, errorResponses, ok } from '../common/envelope.ts';
import { ARTIFACT_BYTES_FAILURES, STORAGE_FULL } from '../common/failures.ts';
import { IdParam } from '../common/schemas.ts';
import { tagged } from '../common/tags.ts';

const AggregateRequest = z
  .object({
    groupBy: z.array(z.string().max(1000)).max(32).optional(),
    metrics: z.array(AggregateMetric).max(64),
    filters: z.array(FilterSchema).max(100).optional(),
    sort: z.array(SortSchema).max(32).optional().openapi({ description: 'By output column name (group-by column or metric `as`).' }),
    limit: z.number().int().min(1).max(10_000).optional().openapi({ description: 'Groups to return, default 1000.' }),
  })
  .strict()
  .openapi('AggregateRequest');

const AggregateEnvelope = envelope(
  'AggregateEnvelope',
  z.object({ columns: z.array(Column), rows: z.array(z.array(z.unknown())), truncated: z.boolean().openapi({ description: 'True when more groups exist than limit.' }) }),
);

const aggregateRoute = createRoute({
  operationId: 'aggregateArtifact',
  method: 'post',
  path: '/api/artifacts/{id}/aggregate',
  tags: tagged('Artifacts'),
  summary: 'Aggregate an artifact (group by, count, count_distinct, sum, avg, min, max)',
  description: 'Sums of integers and decimals are exact and returned as decimal strings; avg is float8. Without sort, groups come in group-key order.',
  request: { params: IdParam, body: { required: true, content: { 'application/json': { schema: AggregateRequest } } } },
  responses: {
    200: { description: 'Aggregated rows.', content: { 'application/json': { schema: AggregateEnvelope } } },
    ...errorResponses(...ARTIFACT_BYTES_FAILURES, 'UNSUPPORTED_CAPABILITY'),
  },
});

const downloadRoute = createRoute({
  operationId: 'downloadArtifact',
  method: 'get',
  path: '/api/artifacts/{id}/download',
  tags: tagged('Artifacts'),
  summary: 'Download the whole artifact, streamed',
  description: 'parquet: one valid Parquet file; csv: a header row and PostgreSQL-like text values; jsonl: one JSON array per line, identical to the rows of the read API.',
  request: {
    params: IdParam,
    query: z.object({ format: z.enum(DOWNLOAD_FORMATS).default('parquet').openapi({ param: { name: 'format', in: 'query' } }) }),
  },
  responses: {
    200: {
      description: 'The file.',
      content: {
        'application/vnd.apache.parquet': { schema: z.string().openapi({ format: 'binary' }) },
        'text/csv': { schema: z.string() },
        'application/x-ndjson': { schema: z.string() },
      },
    },
    307: {
      description:
        'Parquet of an artifact whose bytes are in S3-compatible storage: `Location` is a pre-signed link straight to them, valid for a few minutes (the caller\u2019s access was checked first). HTTP clients follow it by themselves.',
      headers: { Location: { schema: { type: 'string' }, description: 'The pre-signed link.' } },
    },
    ...errorResponses(...ARTIFACT_BYTES_FAILURES, STORAGE_FULL),
  },
});

export function registerAggregateAndDownload(app: OpenAPIHono<AppEnv>, store: ArtifactStore): void {
  app.openapi(aggregateRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const body = c.req.valid('json');
    const result = await store.aggregate(principal.id, c.req.valid('param').id, { ...body, limit: body.limit ?? 1000 });
    const summary = `${result.rows.length} group(s)${result.more ? '; more exist past the limit' : ''}.`;
    return c.json(ok(summary, { columns: result.columns, rows: result.rows, truncated: result.more }), 200);
  });

  app.openapi(downloadRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const file = await store.download(principal.id, c.req.valid('param').id, c.req.valid('query').format);
    if (file.kind === 'redirect') {
      c.header('cache-control', 'no-store');
      return c.redirect(file.url, 307);
    }
    return c.body(file.body, 200, { 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.fileName}"` });
  });
}
