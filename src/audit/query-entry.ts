/**
 * A query's audit entry, made when the query reaches its final state (it
 * keeps running after its HTTP answer), with its rows, bytes and duration,
 * and the request id and route of the request that submitted it. Every
 * query is recorded this way, whichever surface ran it (the query route,
 * the agent's or MCP's tools, the semantic layer), so the entry of an
 * agent or semantic request and the queries it ran share a request id.
 */
import type { EndedQuery } from '../query/query-types.ts';
import type { AuditRecord } from './audit-trail.ts';

/** SQL text is kept up to this many characters, and said to be cut. */
export const AUDIT_SQL_MAX_CHARS = 10_000;

export function boundedSql(sql: string): string {
  return sql.length <= AUDIT_SQL_MAX_CHARS ? sql : `${sql.slice(0, AUDIT_SQL_MAX_CHARS)}… (cut at ${AUDIT_SQL_MAX_CHARS} characters)`;
}

export function queryEntry(ended: EndedQuery): AuditRecord {
  const errorCode = ended.state === 'CANCELLED' ? 'QUERY_CANCELLED' : ended.errorCode;
  return {
    at: ended.submittedAt,
    principal: ended.principal,
    action: 'query',
    route: ended.route ?? 'unknown',
    datasource: ended.datasource,
    sql: boundedSql(ended.sql),
    artifactId: ended.artifactId,
    // It ran: anything but success is a failure of the query (one refused before it ran never reaches here).
    outcome: ended.state === 'SUCCEEDED' ? 'ok' : 'failed',
    errorCode,
    rows: ended.rows,
    bytes: ended.bytes,
    durationMs: ended.durationMs,
    requestId: ended.requestId,
  };
}
