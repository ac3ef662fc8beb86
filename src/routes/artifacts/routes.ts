/** Route definitions of /api/artifacts. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { ARTIFACT_FAILURES, ARTIFACT_BYTES_FAILURES, STORE_FAILURES } from '../common/failures.ts';
import { IdParam } from '../common/schemas.ts';
import { tagged } from '../common/tags.ts';
import { ArtifactEnvelope, DeleteEnvelope, ListEnvelope, ListQuery, ReadEnvelope, ReadRequest } from './schemas.ts';

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
