/** list_tables and describe_table: the schema, as the caller may see it. */
import { describeTable, listTables } from '../../datasources/introspection.ts';
import { SluiceError, toSluiceError } from '../../errors.ts';
import { splitTableName } from '../../routes/datasources/handlers.ts';
import { stringArg, type AgentTool } from './tool-types.ts';

export const listTablesTool: AgentTool = {
  name: 'list_tables',
  description: 'List tables and views of the datasource (at most 100), with estimated row counts. Optional filters: schema, search (substring of the name).',
  parameters: {
    type: 'object',
    properties: { schema: { type: 'string' }, search: { type: 'string' } },
    additionalProperties: false,
  },
  async run(input, ctx) {
    const { tables, total } = await listTables(ctx.datasource, {
      schema: stringArg(input, 'schema', false),
      search: stringArg(input, 'search', false),
      limit: 100,
    }).catch((e: unknown) => {
      throw toSluiceError(e);
    });
    return { tables, returned: tables.length, total, complete: tables.length >= total };
  },
};

export const describeTableTool: AgentTool = {
  name: 'describe_table',
  description: 'Columns (name, type, nullable), primary key, foreign keys and estimated rows of one table, given as schema.table.',
  parameters: {
    type: 'object',
    properties: { table: { type: 'string', description: 'schema.table, e.g. public.orders' } },
    required: ['table'],
    additionalProperties: false,
  },
  async run(input, ctx) {
    const [schema, name] = splitTableName(stringArg(input, 'table')!);
    const detail = await describeTable(ctx.datasource, schema, name).catch((e: unknown) => {
      throw toSluiceError(e);
    });
    if (detail === null) throw new SluiceError('NOT_FOUND', `No table ${schema}.${name}; use list_tables to see what exists.`);
    return detail;
  },
};
