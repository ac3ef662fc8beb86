/** Handlers of /api/datasources. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import { describeTable, listTables } from '../../datasources/introspection.ts';
import type { DatasourceRegistry } from '../../datasources/registry.ts';
import { SluiceError } from '../../errors.ts';
import { ok } from '../common/envelope.ts';
import { describeTableRoute, listDatasources, listTablesRoute } from './routes.ts';

export function registerDatasourceRoutes(app: OpenAPIHono<AppEnv>, registry: DatasourceRegistry): void {
  app.openapi(listDatasources, (c) => {
    const principal = requireRole(c, 'reader');
    const datasources = registry
      .visibleTo(principal)
      .map((d) => ({ id: d.id, description: d.description, embedded: d.embedded, kind: d.kind, dialect: d.driver.dialect.name }));
    return c.json(ok(`${datasources.length} datasource(s).`, { datasources }), 200);
  });

  app.openapi(listTablesRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const ds = registry.get(principal, c.req.valid('param').id);
    const q = c.req.valid('query');
    const limit = q.limit ?? 200;
    const { tables, total } = await listTables(ds, { schema: q.schema, search: q.search, limit });
    const complete = tables.length >= total;
    const completeness = {
      status: complete ? ('COMPLETE' as const) : ('INCOMPLETE' as const),
      returnedRows: tables.length,
      totalRows: total,
      // As a query's completeness names the limit that cut it, and who set it.
      boundedBy: complete ? null : ('limit' as const),
      limitSetBy: complete ? null : q.limit === undefined ? ('server' as const) : ('request' as const),
    };
    const summary = complete ? `${total} table(s).` : `Returned ${tables.length} of ${total} tables; narrow with schema or search, or raise limit.`;
    return c.json(ok(summary, { tables, completeness }), 200);
  });

  app.openapi(describeTableRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const { id, table } = c.req.valid('param');
    const ds = registry.get(principal, id);
    const [schema, name] = ds.driver.dialect.splitTableName(table);
    const detail = await describeTable(ds, schema, name);
    if (detail === null) throw new SluiceError('NOT_FOUND', `No table or view ${schema}.${name} in datasource "${id}".`);
    return c.json(ok(`${schema}.${name}: ${detail.columns.length} columns.`, detail), 200);
  });
}
