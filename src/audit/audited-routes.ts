/**
 * Which requests the audit records, as what, and how their outcome is
 * named. The routes are named by method and route template; a refused
 * sign-in (401 UNAUTHORIZED) is recorded whatever the route. The outcome
 * rule, written once: `ok` for an answer below 400; `failed` when the work
 * was attempted and did not complete (the query's own failures SQL_ERROR,
 * QUERY_TIMEOUT and QUERY_CANCELLED, and every 5xx); `refused` for every
 * other 4xx, which Sluice answered without doing the work (identity,
 * rights, input, quotas, limits).
 */
import type { ErrorCode } from '../errors.ts';
import type { AuditAction, AuditOutcome } from '../vocabulary.ts';

const AUDITED: Readonly<Record<string, AuditAction>> = {
  'POST /api/queries': 'query',
  'POST /api/artifacts/:id/read': 'read',
  'POST /api/artifacts/:id/aggregate': 'aggregate',
  'GET /api/artifacts/:id/download': 'download',
  'DELETE /api/artifacts/:id': 'delete',
  'DELETE /api/sessions/:id': 'delete',
  'POST /api/ai/agent': 'agent',
  'POST /api/ai/chat': 'chat',
  'POST /api/ai/chat/stream': 'chat',
  'POST /api/semantic/query': 'semantic',
  'GET /api/semantic/visualizations/:id/render.svg': 'semantic',
};

/** Routes whose `:id` is an artifact's. */
const ARTIFACT_ROUTES = /^\/api\/artifacts\/:id(\/|$)/;

const QUERY_FAILURES: ReadonlySet<ErrorCode> = new Set(['SQL_ERROR', 'QUERY_TIMEOUT', 'QUERY_CANCELLED']);

/** The action a request is recorded as, or undefined for a request the audit leaves out. */
export function auditedAction(method: string, route: string, errorCode: ErrorCode | null): AuditAction | undefined {
  if (errorCode === 'UNAUTHORIZED') return 'sign_in';
  return AUDITED[`${method} ${route}`];
}

export function outcomeOf(status: number, errorCode: ErrorCode | null): AuditOutcome {
  if (status < 400) return 'ok';
  if (status >= 500 || (errorCode !== null && QUERY_FAILURES.has(errorCode))) return 'failed';
  return 'refused';
}

/** The artifact id in the path of an artifact route (as sent, at most 200 characters), else null. */
export function artifactIdOf(route: string, path: string): string | null {
  if (!ARTIFACT_ROUTES.test(route)) return null;
  const segment = path.split('/')[3];
  if (segment === undefined || segment === '') return null;
  try {
    return decodeURIComponent(segment).slice(0, 200);
  } catch {
    return segment.slice(0, 200);
  }
}
