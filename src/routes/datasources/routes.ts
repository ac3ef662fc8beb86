/** Route definitions and schemas of /api/datasources. */
import { createRoute, z } from '@hono/zod-openapi';
import { envelope, errorResponses, jsonResponse } from '../common/envelope.ts';
import { SCHEMA_FAILURES } from '../common/failures.ts';
import { tagged } from '../common/tags.ts';
import { COMPLETENESS_STATUSES } from '../../vocabulary.ts';
import { TableDetail, TableSummary } from '../../contract/tables.ts';

const DatasourceParam = z.object({ id: z.string().min(1).max(64).openapi({ param: { name: 'id', in: 'path' } }) });

export const listDatasources = createRoute({
  operationId: 'listDatasources',
  method: 'get',
  path: '/api/datasources',
  tags: tagged('Schema'),
  summary: 'List the datasources this token may use',
  responses: {
    200: jsonResponse(envelope('DatasourceListEnvelope', z.object({ datasources: z.array(z.object({ id: z.string(), description: z.string(), embedded: z.boolean() })) })), 'Datasources.'),
    ...errorResponses(),
  },
});

export const listTablesRoute = createRoute({
  operationId: 'listTables',
  method: 'get',
  path: '/api/datasources/{id}/tables',
  tags: tagged('Schema'),
  summary: 'List tables and views (bounded)',
  request: {
    params: DatasourceParam,
    query: z.object({
      schema: z.string().max(128).optional().openapi({ param: { name: 'schema', in: 'query' } }),
      search: z.string().max(128).optional().openapi({ param: { name: 'search', in: 'query' }, description: 'Case-insensitive substring of the table name.' }),
      limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ param: { name: 'limit', in: 'query' }, description: 'Default 200.' }),
    }),
  },
  responses: {
    200: jsonResponse(
      envelope(
        'TableListEnvelope',
        z.object({
          tables: z.array(TableSummary),
          // A listing counts every match, so it is never UNKNOWN.
          completeness: z.object({ status: z.enum(COMPLETENESS_STATUSES).exclude(['UNKNOWN']), returnedRows: z.number().int(), totalRows: z.number().int() }),
        }),
      ),
      'Tables.',
    ),
    ...errorResponses(...SCHEMA_FAILURES),
  },
});

export const describeTableRoute = createRoute({
  operationId: 'describeTable',
  method: 'get',
  path: '/api/datasources/{id}/tables/{table}',
  tags: tagged('Schema'),
  summary: 'Describe one table: columns, primary key, foreign keys, estimated rows',
  request: {
    params: DatasourceParam.extend({
      table: z.string().min(1).max(300).openapi({ param: { name: 'table', in: 'path' }, description: '`schema.table`, or `table` in public.', example: 'public.orders' }),
    }),
  },
  responses: { 200: jsonResponse(envelope('TableDetailEnvelope', TableDetail), 'The table.'), ...errorResponses(...SCHEMA_FAILURES) },
});
