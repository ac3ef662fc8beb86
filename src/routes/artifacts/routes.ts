/** Route definitions of /api/artifacts. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { ARTIFACT_FAILURES, ARTIFACT_BYTES_FAILURES, STORAGE_FULL, STORE_FAILURES } from '../common/failures.ts';
import { IdParam } from '../common/schemas.ts';
import { tagged } from '../common/tags.ts';
import {
  AggregateEnvelope,
  AggregateRequest,
  ArtifactEnvelope,
  DeleteEnvelope,
  DownloadQuery,
  ListEnvelope,
  ListQuery,
  ParquetFile,
  ReadEnvelope,
  ReadRequest,
  TextFile,
} from './schemas.ts';

export const listArtifacts = createRoute({
  operationId: 'listArtifacts',
  method: 'get',
  path: '/api/artifacts',
  tags: tagged('Artifacts'),
  summary: 'List the caller\u2019s committed artifacts, newest first',
  request: { query: ListQuery },
  responses: { 200: jsonResponse(ListEnvelope, 'A page of artifacts.'), ...errorResponses('INVALID_CURSOR', ...STORE_FAILURES) },
});

export const getArtifact = createRoute({
  operationId: 'getArtifact',
  method: 'get',
  path: '/api/artifacts/{id}',
  tags: tagged('Artifacts'),
  summary: 'Describe an artifact',
  request: { params: IdParam },
  responses: { 200: jsonResponse(ArtifactEnvelope, 'The artifact.'), ...errorResponses(...ARTIFACT_FAILURES) },
});

export const readArtifact = createRoute({
  operationId: 'readArtifact',
  method: 'post',
  path: '/api/artifacts/{id}/read',
  tags: tagged('Artifacts'),
  summary: 'Read a page of an artifact',
  description:
    'Projection, filters (AND-ed; values bound, never spliced), sort (ties keep artifact row order) and a page window. Following nextCursor until null yields every matching row exactly once, in order. A cursor is bound to the artifact, the caller and the same columns, filters and sort.',
  request: { params: IdParam, body: { required: true, content: { 'application/json': { schema: ReadRequest } } } },
  responses: {
    200: jsonResponse(ReadEnvelope, 'A page of rows.'),
    ...errorResponses(...ARTIFACT_BYTES_FAILURES, 'UNSUPPORTED_CAPABILITY', 'INVALID_CURSOR', 'CURSOR_EXPIRED'),
  },
});

export const deleteArtifact = createRoute({
  operationId: 'deleteArtifact',
  method: 'delete',
  path: '/api/artifacts/{id}',
  tags: tagged('Artifacts'),
  summary: 'Delete an artifact (idempotent)',
  request: { params: IdParam },
  responses: { 200: jsonResponse(DeleteEnvelope, 'Deleted (again: still 200 for the owner).'), ...errorResponses('NOT_FOUND', ...STORE_FAILURES) },
});

export const aggregateArtifact = createRoute({
  operationId: 'aggregateArtifact',
  method: 'post',
  path: '/api/artifacts/{id}/aggregate',
  tags: tagged('Artifacts'),
  summary: 'Aggregate an artifact (group by, count, count_distinct, sum, avg, min, max)',
  description: 'Sums of integers and decimals are exact and returned as decimal strings; avg is float8. Without sort, groups come in group-key order.',
  request: { params: IdParam, body: { required: true, content: { 'application/json': { schema: AggregateRequest } } } },
  responses: {
    200: jsonResponse(AggregateEnvelope, 'Aggregated rows.'),
    ...errorResponses(...ARTIFACT_BYTES_FAILURES, 'UNSUPPORTED_CAPABILITY'),
  },
});

export const downloadArtifact = createRoute({
  operationId: 'downloadArtifact',
  method: 'get',
  path: '/api/artifacts/{id}/download',
  tags: tagged('Artifacts'),
  summary: 'Download the whole artifact, streamed',
  description: 'parquet: one valid Parquet file; csv: a header row and PostgreSQL-like text values; jsonl: one JSON array per line, identical to the rows of the read API.',
  request: { params: IdParam, query: DownloadQuery },
  responses: {
    200: {
      description: 'The file.',
      content: {
        'application/vnd.apache.parquet': { schema: ParquetFile },
        'text/csv': { schema: TextFile },
        'application/x-ndjson': { schema: TextFile },
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
