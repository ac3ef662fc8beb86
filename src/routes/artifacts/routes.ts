/** Route definitions of /api/artifacts. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { IdParam } from '../common/schemas.ts';
import { ArtifactEnvelope, DeleteEnvelope, ListEnvelope, ListQuery, ReadEnvelope, ReadRequest } from './schemas.ts';


export const listArtifacts = createRoute({
  method: 'get',
  path: '/api/artifacts',
  tags: ['Artifacts'],
  summary: 'List the caller\u2019s committed artifacts, newest first',
  request: { query: ListQuery },
  responses: { 200: jsonResponse(ListEnvelope, 'A page of artifacts.'), ...errorResponses('INVALID_CURSOR') },
});

export const getArtifact = createRoute({
  method: 'get',
  path: '/api/artifacts/{id}',
  tags: ['Artifacts'],
  summary: 'Describe an artifact',
  request: { params: IdParam },
  responses: { 200: jsonResponse(ArtifactEnvelope, 'The artifact.'), ...errorResponses('NOT_FOUND', 'ARTIFACT_EXPIRED') },
});

export const readArtifact = createRoute({
  method: 'post',
  path: '/api/artifacts/{id}/read',
  tags: ['Artifacts'],
  summary: 'Read a page of an artifact',
  description:
    'Projection, filters (AND-ed; values bound, never spliced), sort (ties keep artifact row order) and a page window. Following nextCursor until null yields every matching row exactly once, in order. A cursor is bound to the artifact, the caller and the same columns, filters and sort.',
  request: { params: IdParam, body: { required: true, content: { 'application/json': { schema: ReadRequest } } } },
  responses: {
    200: jsonResponse(ReadEnvelope, 'A page of rows.'),
    ...errorResponses('NOT_FOUND', 'ARTIFACT_EXPIRED', 'INVALID_CURSOR', 'CURSOR_EXPIRED', 'UNSUPPORTED_CAPABILITY'),
  },
});

export const deleteArtifact = createRoute({
  method: 'delete',
  path: '/api/artifacts/{id}',
  tags: ['Artifacts'],
  summary: 'Delete an artifact (idempotent)',
  request: { params: IdParam },
  responses: { 200: jsonResponse(DeleteEnvelope, 'Deleted (again: still 200 for the owner).'), ...errorResponses('NOT_FOUND') },
});
