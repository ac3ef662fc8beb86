/** Route definitions of /api/sessions (listing, reference copy, retirement, export and import) and /api/usage. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { STORE_FAILURES } from '../common/failures.ts';
import { tagged } from '../common/tags.ts';
import {
  BUNDLE_DESCRIPTION,
  REJECTION_DESCRIPTION,
  SessionCopyEnvelope,
  SessionCopyRequest,
  SessionImportEnvelope,
  SessionListEnvelope,
  SessionParam,
  SessionRetireEnvelope,
  TarFile,
  UsageEnvelope,
  UsageQuery,
} from './schemas.ts';

export const listSessions = createRoute({
  operationId: 'listSessions',
  method: 'get',
  path: '/api/sessions',
  tags: tagged('Sessions'),
  summary: 'The caller\u2019s sessions that hold readable artifacts, most recently used first',
  responses: { 200: jsonResponse(SessionListEnvelope, 'The sessions.'), ...errorResponses(...STORE_FAILURES) },
});

export const copySession = createRoute({
  operationId: 'copySession',
  method: 'post',
  path: '/api/sessions/{id}/copy',
  tags: tagged('Sessions'),
  summary: 'Copy a session\u2019s artifacts (or some of them) into another session (references only, never bytes)',
  request: { params: SessionParam, body: { required: true, content: { 'application/json': { schema: SessionCopyRequest } } } },
  responses: { 200: jsonResponse(SessionCopyEnvelope, 'The new artifact ids.'), ...errorResponses('NOT_FOUND', 'QUOTA_EXCEEDED', ...STORE_FAILURES) },
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

export const exportSession = createRoute({
  operationId: 'exportSession',
  method: 'get',
  path: '/api/sessions/{id}/export',
  tags: tagged('Sessions'),
  summary: 'Export a session as a portable bundle (tar), streamed',
  description: `${BUNDLE_DESCRIPTION} Every part is checked against its SHA-256 as it is sent; a part that fails it ends the stream early, so the bundle never looks whole.`,
  request: { params: SessionParam },
  responses: {
    200: { description: 'The bundle.', content: { 'application/x-tar': { schema: TarFile } } },
    ...errorResponses('NOT_FOUND', 'ARTIFACT_CORRUPT', ...STORE_FAILURES),
  },
});

export const importSession = createRoute({
  operationId: 'importSession',
  method: 'post',
  path: '/api/sessions/{id}/import',
  tags: tagged('Sessions'),
  summary: 'Import a session bundle into a session of the caller: all of it or nothing',
  description: `${BUNDLE_DESCRIPTION} The body streams in (Content-Type: application/x-tar) up to SLUICE_IMPORT_MAX_BYTES, counted against the caller\u2019s quota. The format version, every part\u2019s size and SHA-256 and the manifest\u2019s closure (every referenced part present once, nothing else, no other entry names) are checked, and each artifact\u2019s parts opened as Parquet, before anything is committed; then every artifact is committed in one transaction.`,
  request: { params: SessionParam, body: { required: true, content: { 'application/x-tar': { schema: TarFile } } } },
  responses: {
    200: jsonResponse(SessionImportEnvelope, 'The new artifact id of each artifact of the bundle.'),
    ...errorResponses({ code: 'VALIDATION_ERROR', status: 400, description: REJECTION_DESCRIPTION }, 'QUOTA_EXCEEDED', ...STORE_FAILURES),
  },
});

export const getUsage = createRoute({
  operationId: 'getUsage',
  method: 'get',
  path: '/api/usage',
  tags: tagged('Sessions'),
  summary: 'Artifact usage of the caller (and of the workspace, for admins; and of one session with ?sessionId=)',
  request: { query: UsageQuery },
  responses: { 200: jsonResponse(UsageEnvelope, 'Usage.'), ...errorResponses(...STORE_FAILURES) },
});
