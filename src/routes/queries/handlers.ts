/** Handlers of /api/queries. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { QueryRecord } from '../../query/query-record.ts';
import type { QueryService } from '../../query/query-service.ts';
import { queryData, queryError, querySummary } from '../../query/query-view.ts';
import { ok } from '../common/envelope.ts';
import { cancelQuery, getQuery, submitQuery } from './routes.ts';

const DEFAULT_WAIT_MS = 30_000;
const CANCEL_WAIT_MS = 10_000;

function answer(record: QueryRecord) {
  if (record.state === 'FAILED') throw queryError(record);
  const data = queryData(record);
  return { body: ok(querySummary(data), data), status: record.state === 'RUNNING' ? (202 as const) : (200 as const) };
}

export function registerQueryRoutes(app: OpenAPIHono<AppEnv>, queries: QueryService): void {
  app.openapi(submitQuery, async (c) => {
    const principal = requireRole(c, 'reader');
    const body = c.req.valid('json');
    const record = await queries.submit(principal, body);
    await record.settledWithin(body.waitMs ?? DEFAULT_WAIT_MS);
    const { body: out, status } = answer(record);
    return c.json(out as never, status);
  });

  app.openapi(getQuery, async (c) => {
    const principal = requireRole(c, 'reader');
    const record = queries.get(principal, c.req.valid('param').id);
    const waitMs = c.req.valid('query').waitMs ?? 0;
    if (waitMs > 0) await record.settledWithin(waitMs);
    const { body: out, status } = answer(record);
    return c.json(out as never, status);
  });

  app.openapi(cancelQuery, async (c) => {
    const principal = requireRole(c, 'reader');
    const record = queries.get(principal, c.req.valid('param').id);
    record.cancel();
    await record.settledWithin(CANCEL_WAIT_MS);
    const { body: out, status } = answer(record);
    return c.json(out as never, status as 200);
  });
}
