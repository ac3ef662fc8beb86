/** list_datasources, list_tables and describe_table: the schema, as the caller may see it. */
import { z } from 'zod';
import { describeTable, listTables } from '../../datasources/introspection.ts';
import { SluiceError } from '../../errors.ts';
import { defineTool } from './tool-types.ts';
import { TableDetail, TableSummary } from './tool-schemas.ts';

const LISTED_TABLES = 100;

/**
 * MCP only, deliberately: the agent answers about the one datasource its
 * request names, and every agent tool reads that one, so a list of others
 * would only lead the model toward sources it cannot query. An MCP client
 * names the datasource on each call, so it needs to know which exist.
 */
export const listDatasourcesTool = defineTool({
  name: 'list_datasources',
  description: 'The datasources this token may use.',
  role: 'reader',
  surfaces: ['mcp'],
  usesDatasource: false,
  needsSemantic: false,
  input: z.strictObject({}),
  output: z.strictObject({ datasources: z.array(z.strictObject({ id: z.string(), description: z.string() })) }),
  list: 'datasources',
  async run(_input, ctx) {
    return { datasources: ctx.registry.visibleTo(ctx.principal).map((d) => ({ id: d.id, description: d.description })) };
  },
});

export const listTablesTool = defineTool({
  name: 'list_tables',
  description: `List tables and views of the datasource (at most ${LISTED_TABLES}), with estimated row counts. Optional filters: schema, search (substring of the name).`,
  role: 'reader',
  surfaces: ['agent', 'mcp'],
  usesDatasource: true,
  needsSemantic: false,
  input: z.strictObject({ schema: z.string().min(1).max(128).optional(), search: z.string().min(1).max(128).optional() }),
  output: z.strictObject({ tables: z.array(TableSummary), returned: z.number().int(), total: z.number().int(), complete: z.boolean() }),
  list: 'tables',
  async run(input, ctx) {
    const { tables, total } = await listTables(ctx.datasource, { schema: input.schema, search: input.search, limit: LISTED_TABLES });
    return { tables, returned: tables.length, total, complete: tables.length >= total };
  },
});

export const describeTableTool = defineTool({
  name: 'describe_table',
  description: 'Columns (name, type, nullable), primary key, foreign keys and estimated rows of one table, given as schema.table.',
  role: 'reader',
  surfaces: ['agent', 'mcp'],
  usesDatasource: true,
  needsSemantic: false,
  input: z.strictObject({ table: z.string().min(1).max(300).describe('schema.table, e.g. public.orders') }),
  output: TableDetail,
  list: 'columns',
  async run(input, ctx) {
    const [schema, name] = ctx.datasource.driver.dialect.splitTableName(input.table);
    const detail = await describeTable(ctx.datasource, schema, name);
    if (detail === null) throw new SluiceError('NOT_FOUND', `No table ${schema}.${name}; use list_tables to see what exists.`);
    return detail;
  },
});
