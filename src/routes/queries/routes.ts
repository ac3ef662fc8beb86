/** Route definitions of /api/queries: what the OpenAPI document says. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { QUERY_FAILURES, STORE_FAILURES } from '../common/failures.ts';
import { IdParam } from '../common/schemas.ts';
import { tagged } from '../common/tags.ts';
import { HistoryEnvelope, HistoryQuery, PollQuery, QueryEnvelope, QueryRequest } from './schemas.ts';

export const submitQuery = createRoute({
  operationId: 'submitQuery',
  method: 'post',
  path: '/api/queries',
  tags: tagged('Queries'),
  summary: 'Run a read-only query',
  description:
    'Runs one read-only statement. Answers with a bounded preview, exact completeness and, when the preview is not the whole result, an artifact holding it. Within waitMs the answer is the final state; past it, 202 with state RUNNING.',
  request: { body: { required: true, content: { 'application/json': { schema: QueryRequest } } } },
  responses: {
    200: jsonResponse(QueryEnvelope, 'The query ended (SUCCEEDED or CANCELLED).'),
    202: jsonResponse(QueryEnvelope, 'Still running after waitMs; poll GET /api/queries/{id}.'),
    ...errorResponses(...QUERY_FAILURES),
  },
});

export const listQueryHistory = createRoute({
  operationId: 'listQueryHistory',
  method: 'get',
  path: '/api/queries',
  tags: tagged('Queries'),
  summary: 'The caller\u2019s query history, newest first',
  description:
    'Every query the caller ran (through any replica, any route: SQL, semantic, agent and MCP tools), newest first, kept SLUICE_QUERY_HISTORY_DAYS days. Never another principal\u2019s. A bad limit, state or datasource is VALIDATION_ERROR; a cursor this server did not hand out is INVALID_CURSOR.',
  request: { query: HistoryQuery },
  responses: { 200: jsonResponse(HistoryEnvelope, 'A page of the history; nextCursor is null on the last page.'), ...errorResponses('INVALID_CURSOR', ...STORE_FAILURES) },
});

export const getQuery = createRoute({
  operationId: 'getQuery',
  method: 'get',
  path: '/api/queries/{id}',
  tags: tagged('Queries'),
  summary: 'Poll a query',
  request: { params: IdParam, query: PollQuery },
  responses: {
    200: jsonResponse(QueryEnvelope, 'The query ended.'),
    202: jsonResponse(QueryEnvelope, 'Still running.'),
    ...errorResponses(...QUERY_FAILURES),
  },
});

export const cancelQuery = createRoute({
  operationId: 'cancelQuery',
  method: 'post',
  path: '/api/queries/{id}/cancel',
  tags: tagged('Queries'),
  summary: 'Cancel a query',
  description: 'Stops the query on the database too and removes anything staged. Cancelling a query that already ended changes nothing and returns its state.',
  request: { params: IdParam },
  responses: {
    200: jsonResponse(QueryEnvelope, 'The query\u2019s state after the cancel (CANCELLED, or the state it had already ended in).'),
    202: jsonResponse(QueryEnvelope, 'The database has not stopped the statement yet; poll GET /api/queries/{id} for the final state.'),
    ...errorResponses(...QUERY_FAILURES),
  },
});
