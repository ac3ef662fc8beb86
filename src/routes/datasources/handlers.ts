/** Handlers of /api/datasources. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import { describeTable, listTables } from '../../datasources/introspection.ts';
import type { DatasourceRegistry } from '../../datasources/registry.ts';
import { SluiceError, toSluiceError } from '../../errors.ts';
import { ok } from '../common/envelope.ts';
import { describeTableRoute, listDatasources, listTablesRoute } from './routes.ts';

/** `schema.table`; a name without a dot is in public. A quoted part may hold dots. */
export function splitTableName(text: string): [string, string] {
  const parts = text.match(/("([^"]|"")*"|[^.]+)/g) ?? [];
  const unquote = (p: string) => (p.startsWith('"') ? p.slice(1, -1).replaceAll('""', '"') : p);
  if (parts.length === 1) return ['public', unquote(parts[0]!)];
  if (parts.length === 2) return [unquote(parts[0]!), unquote(parts[1]!)];
  throw new SluiceError('VALIDATION_ERROR', `"${text}" is not a table name; use schema.table.`);
}

async function database<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toSluiceError(error);
  }
}

export function registerDatasourceRoutes(app: OpenAPIHono<AppEnv>, registry: DatasourceRegistry): void {
  app.openapi(listDatasources, (c) => {
    const principal = requireRole(c, 'reader');
    const datasources = registry.visibleTo(principal).map((d) => ({ id: d.id, description: d.description, embedded: d.embedded }));
    return c.json(ok(`${datasources.length} datasource(s).`, { datasources }), 200);
  });

  app.openapi(listTablesRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const ds = registry.get(principal, c.req.valid('param').id);
    const q = c.req.valid('query');
    const limit = q.limit ?? 200;
    const { tables, total } = await database(() => listTables(ds, { schema: q.schema, search: q.search, limit }));
    const complete = tables.length >= total;
    const completeness = { status: complete ? ('COMPLETE' as const) : ('INCOMPLETE' as const), returnedRows: tables.length, totalRows: total };
    const summary = complete ? `${total} table(s).` : `Returned ${tables.length} of ${total} tables; narrow with schema or search, or raise limit.`;
    return c.json(ok(summary, { tables, completeness }), 200);
  });

  app.openapi(describeTableRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const { id, table } = c.req.valid('param');
    const ds = registry.get(principal, id);
    const [schema, name] = splitTableName(table);
    const detail = await database(() => describeTable(ds, schema, name));
    if (detail === null) throw new SluiceError('NOT_FOUND', `No table or view ${schema}.${name} in datasource "${id}".`);
    return c.json(ok(`${schema}.${name}: ${detail.columns.length} columns.`, detail), 200);
  });
}
