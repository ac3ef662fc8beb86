/** Route definitions of the admins' store maintenance. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { STORE_FAILURES } from '../common/failures.ts';
import { tagged } from '../common/tags.ts';
import { MaintenanceEnvelope, StoreCheckEnvelope, StoreCheckRequest } from './schemas.ts';

export const runMaintenance = createRoute({
  operationId: 'runMaintenance',
  method: 'post',
  path: '/api/admin/maintenance',
  tags: tagged('Maintenance'),
  summary: 'Run one bounded collection round now (admins)',
  description: 'The same round the background collector runs each minute: expiry, removal of blobs unreferenced for longer than the grace period, tombstone purge and a page of the orphan sweep. Answers what it released.',
  responses: { 200: jsonResponse(MaintenanceEnvelope, 'What the round released.'), ...errorResponses(...STORE_FAILURES) },
});

export const checkStore = createRoute({
  operationId: 'checkStore',
  method: 'post',
  path: '/api/admin/store-check',
  tags: tagged('Maintenance'),
  summary: 'Check the catalog against the stored bytes, one bounded round (admins)',
  description: 'Reports missing, corrupt and orphaned parts; changes nothing. Follow `nextCursor` until null to walk the whole store (`npm run store:check` does).',
  request: { body: { required: false, content: { 'application/json': { schema: StoreCheckRequest } } } },
  responses: { 200: jsonResponse(StoreCheckEnvelope, 'What this round found.'), ...errorResponses('INVALID_CURSOR', ...STORE_FAILURES) },
});
