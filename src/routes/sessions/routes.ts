/** Route definitions of /api/sessions (reference copy, retirement) and /api/usage. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { STORE_FAILURES } from '../common/failures.ts';
import { tagged } from '../common/tags.ts';
import { SessionCopyEnvelope, SessionCopyRequest, SessionParam, SessionRetireEnvelope, UsageEnvelope } from './schemas.ts';

export const copySession = createRoute({
  operationId: 'copySession',
  method: 'post',
  path: '/api/sessions/{id}/copy',
  tags: tagged('Sessions'),
  summary: 'Copy a session\u2019s artifacts into another session (references only, never bytes)',
  request: { params: SessionParam, body: { required: true, content: { 'application/json': { schema: SessionCopyRequest } } } },
  responses: { 200: jsonResponse(SessionCopyEnvelope, 'The new artifact ids.'), ...errorResponses('QUOTA_EXCEEDED', ...STORE_FAILURES) },
});

export const retireSession = createRoute({
  operationId: 'retireSession',
  method: 'delete',
  path: '/api/sessions/{id}',
  tags: tagged('Sessions'),
  summary: 'Retire a session, releasing only its own references',
  request: { params: SessionParam },
  responses: { 200: jsonResponse(SessionRetireEnvelope, 'What was released.'), ...errorResponses(...STORE_FAILURES) },
});

export const getUsage = createRoute({
  operationId: 'getUsage',
  method: 'get',
  path: '/api/usage',
  tags: tagged('Sessions'),
  summary: 'Artifact usage of the caller (and of the workspace, for admins)',
  responses: { 200: jsonResponse(UsageEnvelope, 'Usage.'), ...errorResponses(...STORE_FAILURES) },
});
