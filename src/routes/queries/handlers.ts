/** Handlers of /api/queries: submit (waiting up to waitMs), poll and cancel, all answered by the query use-case. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { QueryService } from '../../query/query-service.ts';
import type { QueryAnswer } from '../../query/query-view.ts';
import { ok } from '../common/envelope.ts';
import { cancelQuery, getQuery, submitQuery } from './routes.ts';

const DEFAULT_WAIT_MS = 30_000;
const CANCEL_WAIT_MS = 10_000;

function body(answer: QueryAnswer) {
  return ok(answer.summary, answer.data);
}

export function registerQueryRoutes(app: OpenAPIHono<AppEnv>, queries: QueryService): void {
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
