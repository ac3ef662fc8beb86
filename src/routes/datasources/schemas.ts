/** Request and response schemas of /api/datasources: the datasources, their tables and one table's detail. */
import { z } from '@hono/zod-openapi';
import { COMPLETENESS_STATUSES, DATASOURCE_KINDS, DIALECT_NAMES, LIMIT_SOURCES, LISTING_BOUNDS } from '../../vocabulary.ts';
import { TableDetail, TableSummary } from '../../contract/tables.ts';
import { envelope } from '../common/envelope.ts';

export const DatasourceParam = z.object({ id: z.string().min(1).max(64).openapi({ param: { name: 'id', in: 'path' } }) });

export const TableParams = DatasourceParam.extend({
  table: z.string().min(1).max(300).openapi({ param: { name: 'table', in: 'path' }, description: '`schema.table`, or `table` in public.', example: 'public.orders' }),
});

export const TableListQuery = z.object({
  schema: z.string().max(128).optional().openapi({ param: { name: 'schema', in: 'query' } }),
  search: z.string().max(128).optional().openapi({ param: { name: 'search', in: 'query' }, description: 'Case-insensitive substring of the table name.' }),
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ param: { name: 'limit', in: 'query' }, description: 'Default 200.' }),
});

export const DatasourceListEnvelope = envelope(
  'DatasourceListEnvelope',
  z.object({
    datasources: z.array(
      z.object({
        id: z.string(),
        description: z.string(),
        embedded: z.boolean(),
        kind: z.enum(DATASOURCE_KINDS).openapi({ description: 'The engine: postgres, mysql (MariaDB and MySQL), sqlite or files (a folder of Parquet, CSV and JSON files).' }),
        dialect: z.enum(DIALECT_NAMES).openapi({ description: 'The SQL dialect its queries are written in, as the server reports itself (mariadb or mysql for kind mysql); the AI chat\u2019s default flavor.' }),
      }),
    ),
  }),
);

export const TableListEnvelope = envelope(
  'TableListEnvelope',
  z.object({
    tables: z.array(TableSummary),
    // A listing counts every match, so it is never UNKNOWN.
    completeness: z.object({
      status: z.enum(COMPLETENESS_STATUSES).exclude(['UNKNOWN']),
      returnedRows: z.number().int(),
      totalRows: z.number().int(),
      boundedBy: z.enum(LISTING_BOUNDS).nullable().openapi({ description: '`limit` when the listing stopped at its limit (more tables match), else null.' }),
      limitSetBy: z.enum(LIMIT_SOURCES).nullable().openapi({ description: 'Who set the limit named in boundedBy: the request (`limit`) or the server (its default of 200).' }),
    }),
  }),
);

export const TableDetailEnvelope = envelope('TableDetailEnvelope', TableDetail);
