/** Request and response schemas of /api/artifacts: describe, list, read, aggregate, download, delete. */
import { z } from '@hono/zod-openapi';
import { ARTIFACT_STATES, CAPS, COVERAGES, DOWNLOAD_FORMATS, FILTER_OPS } from '../../vocabulary.ts';
import { AggregateMetric, FilterSchema, SortSchema } from '../../contract/reads.ts';
import { Column, SessionId } from '../../contract/results.ts';
import { envelope } from '../common/envelope.ts';

export const Capabilities = z
  .object({
    projection: z.boolean(),
    filterOps: z.array(z.enum(FILTER_OPS)),
    sort: z.boolean(),
    aggregate: z.boolean(),
    formats: z.array(z.enum(DOWNLOAD_FORMATS)),
  })
  .openapi('Capabilities');

export const Artifact = z
  .object({
    id: z.string(),
    state: z.enum(ARTIFACT_STATES),
    sessionId: z.string(),
    sql: z.string(),
    datasource: z.string(),
    columns: z.array(Column),
    rowCount: z.number().int(),
    sizeBytes: z.number().int(),
    coverage: z.enum(COVERAGES),
    boundedBy: z.enum(CAPS).nullable().openapi({ description: 'For a PREFIX: the cap that cut it.' }),
    createdAt: z.string(),
    expiresAt: z.string(),
    capabilities: Capabilities,
  })
  .openapi('Artifact');

export const ReadRequest = z
  .object({
    cursor: z.string().max(4096).optional(),
    limit: z.number().int().min(1).max(1000).optional().openapi({ description: 'Rows per page, 1..1000 (default 100).' }),
    columns: z.array(z.string().max(1000)).min(1).max(1600).optional(),
    filters: z.array(FilterSchema).max(100).optional(),
    sort: z.array(SortSchema).max(32).optional(),
  })
  .strict()
  .openapi('ReadRequest');

export const ReadData = z
  .object({ columns: z.array(Column), rows: z.array(z.array(z.unknown())), nextCursor: z.string().nullable() })
  .openapi('ReadData');

export const ListQuery = z.object({
  sessionId: SessionId.optional().openapi({ param: { name: 'sessionId', in: 'query' } }),
  cursor: z.string().max(200).optional().openapi({ param: { name: 'cursor', in: 'query' } }),
  limit: z.coerce.number().int().min(1).max(500).optional().openapi({ param: { name: 'limit', in: 'query' } }),
});

export const ArtifactEnvelope = envelope('ArtifactEnvelope', Artifact);
export const ReadEnvelope = envelope('ReadEnvelope', ReadData);
export const ListEnvelope = envelope('ArtifactListEnvelope', z.object({ artifacts: z.array(Artifact), nextCursor: z.string().nullable() }));
export const DeleteEnvelope = envelope('DeleteEnvelope', z.object({ id: z.string(), deleted: z.boolean() }));

export const AggregateRequest = z
  .object({
    groupBy: z.array(z.string().max(1000)).max(32).optional(),
    metrics: z.array(AggregateMetric).max(64),
    filters: z.array(FilterSchema).max(100).optional(),
    sort: z.array(SortSchema).max(32).optional().openapi({ description: 'By output column name (group-by column or metric `as`).' }),
    limit: z.number().int().min(1).max(10_000).optional().openapi({ description: 'Groups to return, default 1000.' }),
  })
  .strict()
  .openapi('AggregateRequest');

export const AggregateEnvelope = envelope(
  'AggregateEnvelope',
  z.object({ columns: z.array(Column), rows: z.array(z.array(z.unknown())), truncated: z.boolean().openapi({ description: 'True when more groups exist than limit.' }) }),
);

export const DownloadQuery = z.object({ format: z.enum(DOWNLOAD_FORMATS).default('parquet').openapi({ param: { name: 'format', in: 'query' } }) });

/** The bodies of a download, by format: Parquet is binary, CSV and JSON lines are text. */
export const ParquetFile = z.string().openapi({ format: 'binary' });
export const TextFile = z.string();
