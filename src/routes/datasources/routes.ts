/** Route definitions of /api/datasources. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../common/envelope.ts';
import { SCHEMA_FAILURES } from '../common/failures.ts';
import { tagged } from '../common/tags.ts';
import { DatasourceListEnvelope, DatasourceParam, TableDetailEnvelope, TableListEnvelope, TableListQuery, TableParams } from './schemas.ts';

export const listDatasources = createRoute({
  operationId: 'listDatasources',
  method: 'get',
  path: '/api/datasources',
  tags: tagged('Schema'),
  summary: 'List the datasources this token may use',
  responses: { 200: jsonResponse(DatasourceListEnvelope, 'Datasources.'), ...errorResponses() },
});

export const listTablesRoute = createRoute({
  operationId: 'listTables',
  method: 'get',
  path: '/api/datasources/{id}/tables',
  tags: tagged('Schema'),
  summary: 'List tables and views (bounded)',
  request: { params: DatasourceParam, query: TableListQuery },
  responses: { 200: jsonResponse(TableListEnvelope, 'Tables.'), ...errorResponses(...SCHEMA_FAILURES) },
});

export const describeTableRoute = createRoute({
  operationId: 'describeTable',
  method: 'get',
  path: '/api/datasources/{id}/tables/{table}',
  tags: tagged('Schema'),
  summary: 'Describe one table: columns, primary key, foreign keys, estimated rows',
  request: { params: TableParams },
  responses: { 200: jsonResponse(TableDetailEnvelope, 'The table.'), ...errorResponses(...SCHEMA_FAILURES) },
});
