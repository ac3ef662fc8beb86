/** Route definition of /api/me. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { STORE_FAILURES } from '../common/failures.ts';
import { tagged } from '../common/tags.ts';
import { MeEnvelope } from './schemas.ts';

export const getMe = createRoute({
  operationId: 'getMe',
  method: 'get',
  path: '/api/me',
  tags: tagged('Identity'),
  summary: 'Who the caller is: principal, roles, datasources, how it signed in, and its usage',
  responses: { 200: jsonResponse(MeEnvelope, 'The caller.'), ...errorResponses(...STORE_FAILURES) },
});
