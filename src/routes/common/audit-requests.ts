/**
 * The audit of HTTP requests: a middleware outside authentication, so a
 * refused sign-in is seen too. After the answer it knows the route
 * template, the status and the error (the app's own mapping, failure-of.ts),
 * the principal once authenticated, and what the handler noted (rows of a
 * page); it hands one entry to the trail and returns: nothing waits on the
 * catalog. A streamed download's entry is handed over when its body ended,
 * with the bytes it sent (`failed` when the client cut it off or the stream
 * failed). A query is recorded when it ends (audit/query-entry.ts), with its rows
 * and duration; here only a query request refused before anything ran.
 * Nothing secret is kept: no header, no token, only the SQL text the
 * caller sent (its own query).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, AuditNote } from '../../auth/middleware.ts';
import type { Principal } from '../../auth/principals.ts';
import { failureOf } from './failure-of.ts';
import { routeTemplateOf } from './route-template.ts';
import { onRoute } from '../../runtime/request-scope.ts';
import type { AuditRecord, AuditTrail } from '../../audit/audit-trail.ts';
import { artifactIdOf, auditedAction, outcomeOf } from '../../audit/audited-routes.ts';
import { boundedSql } from '../../audit/query-entry.ts';

/** Adds to the request's audit entry; a no-op where the request is not audited. */
export function noteAudit(c: Context<AppEnv>, facts: AuditNote): void {
  const note = c.get('audit') as AuditNote | undefined;
  if (note !== undefined) Object.assign(note, facts);
}

/** The SQL and datasource of a query request that never ran, from its body (already read, so cached). */
async function refusedQuery(c: Context<AppEnv>): Promise<{ sql: string | null; datasource: string | null }> {
  try {
    const body = (await c.req.json()) as { sql?: unknown; datasource?: unknown };
    return {
      sql: typeof body.sql === 'string' ? boundedSql(body.sql) : null,
      datasource: typeof body.datasource === 'string' ? body.datasource.slice(0, 200) : 'default',
    };
  } catch {
    return { sql: null, datasource: null };
  }
}

export function auditRequests(trail: AuditTrail, bodyLimitBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const at = new Date();
    const started = performance.now();
    const note: AuditNote = {};
    c.set('audit', note);
    // The route rides along with the request's work, so a query it starts can name it when it ends.
    await onRoute(routeTemplateOf(c), next);
    const route = routeTemplateOf(c);
    const status = c.res.status;
    const failure = c.error === undefined || status < 400 ? null : failureOf(c.error, bodyLimitBytes);
    const errorCode = failure?.code ?? null;
    const action = auditedAction(c.req.method, route, errorCode);
    if (action === undefined) return;
    // A query that was submitted is recorded when it ends, failed ones included (their error names the query).
    if (action === 'query' && (status < 400 || failure?.details?.queryId !== undefined)) return;
    const query = action === 'query' && errorCode !== 'PAYLOAD_TOO_LARGE' ? await refusedQuery(c) : null;
    const principal = action === 'sign_in' ? null : ((c.get('principal') as Principal | undefined)?.id ?? null);
    const entry: AuditRecord = {
      at: at.toISOString(),
      principal,
      action,
      route,
      datasource: query?.datasource ?? null,
      sql: query?.sql ?? null,
      artifactId: action === 'sign_in' ? null : artifactIdOf(route, c.req.path),
      outcome: outcomeOf(status, errorCode),
      errorCode,
      rows: note.rows ?? null,
      bytes: null,
      durationMs: Math.round(performance.now() - started),
      requestId: c.get('requestId') ?? null,
    };
    if (note.sent === undefined || status >= 400) {
      trail.record(entry);
      return;
    }
    // A streamed body leaves after this returns: its entry is written when the body ended, with what it sent.
    void note.sent.then(({ bytes, whole, errorCode: streamError }) =>
      trail.record({ ...entry, bytes, outcome: whole ? 'ok' : 'failed', errorCode: streamError, durationMs: Math.round(performance.now() - started) }),
    );
  };
}
