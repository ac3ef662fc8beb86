/** Handlers of /api/queries: submit (waiting up to waitMs), poll and cancel, answered by the query use-case; and the caller's history. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { DatasourceRegistry } from '../../datasources/registry.ts';
import { SluiceError } from '../../errors.ts';
import type { QueryHistory } from '../../query/query-history.ts';
import type { QueryService } from '../../query/query-service.ts';
import type { QueryAnswer } from '../../query/query-view.ts';
import { ok } from '../common/envelope.ts';
import { cancelQuery, getQuery, listQueryHistory, submitQuery } from './routes.ts';

const DEFAULT_WAIT_MS = 30_000;
const CANCEL_WAIT_MS = 10_000;
const HISTORY_PAGE = 50;

function body(answer: QueryAnswer) {
  return ok(answer.summary, answer.data);
}

export function registerQueryRoutes(app: OpenAPIHono<AppEnv>, queries: QueryService, history: QueryHistory, datasources: DatasourceRegistry): void {
  app.openapi(listQueryHistory, async (c) => {
    const principal = requireRole(c, 'reader');
    const q = c.req.valid('query');
    // A datasource the caller may not use is as unknown as one that does not exist.
    if (q.datasource !== undefined && !datasources.knows(principal, q.datasource)) {
      throw new SluiceError('VALIDATION_ERROR', `Invalid request: datasource: no datasource "${q.datasource}" is available to this caller.`, { field: 'datasource' });
    }
    const page = await history.list(principal.id, { limit: q.limit ?? HISTORY_PAGE, cursor: q.cursor, state: q.state, datasource: q.datasource });
    const summary = page.items.length === 0 ? 'No queries in the history.' : `${page.items.length} quer${page.items.length === 1 ? 'y' : 'ies'}, newest first${page.nextCursor === null ? '' : '; more follow (nextCursor)'}.`;
    return c.json(ok(summary, page), 200);
  });

  app.openapi(submitQuery, async (c) => {
    const principal = requireRole(c, 'reader');
    const request = c.req.valid('json');
    const answer = await queries.run(principal, request, { waitMs: request.waitMs ?? DEFAULT_WAIT_MS, onTimeout: 'continue' });
    return c.json(body(answer), answer.status);
  });

  app.openapi(getQuery, async (c) => {
    const principal = requireRole(c, 'reader');
    const answer = await queries.poll(principal, c.req.valid('param').id, c.req.valid('query').waitMs ?? 0);
    return c.json(body(answer), answer.status);
  });

  app.openapi(cancelQuery, async (c) => {
    const principal = requireRole(c, 'reader');
    // A backend that does not stop within the wait (the embedded database cannot interrupt a statement) is still RUNNING: 202.
    const answer = await queries.cancel(principal, c.req.valid('param').id, CANCEL_WAIT_MS);
    return c.json(body(answer), answer.status);
  });
}
