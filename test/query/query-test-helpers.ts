/**
 * Small helpers shared by the /api/queries integration suites: submitting a
 * query, reading a whole artifact back through its cursors, polling for a
 * condition, and the checks every error body must pass (no paths, no stacks).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { TOKENS, type TestServer } from '../helpers/server.ts';

export type Response = Awaited<ReturnType<TestServer['request']>>;

export function runQuery(server: TestServer, body: Record<string, unknown>, token: string = TOKENS.admin): Promise<Response> {
  return server.request('/api/queries', { body, token });
}

/** Every row of an artifact, following nextCursor until it is null. */
export async function readAll(
  server: TestServer,
  artifactId: string,
  token: string = TOKENS.admin,
  pageSize = 1000,
): Promise<{ columns: { name: string; type: string }[]; rows: unknown[][]; pages: number }> {
  const rows: unknown[][] = [];
  let columns: { name: string; type: string }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const body: Record<string, unknown> = { limit: pageSize };
    if (cursor !== null) body.cursor = cursor;
    const r = await server.request(`/api/artifacts/${artifactId}/read`, { body, token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    columns = r.body.data.columns;
    rows.push(...(r.body.data.rows as unknown[][]));
    cursor = r.body.data.nextCursor;
    pages++;
    // A cursor that never ends is a bug, not a long artifact: no test artifact needs this many pages.
    expect(pages).toBeLessThan(1000);
  } while (cursor !== null);
  return { columns, rows, pages };
}

/** Entries in the artifact staging directory: exports in flight or leftovers. */
export function stagingEntries(server: TestServer): string[] {
  return readdirSync(join(server.dataDir, 'artifacts', 'staging'));
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns the last answer. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5000, everyMs = 100): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Backends other than the checker's own that are running a statement whose text contains `marker`. */
export async function activeBackendsWith(server: TestServer, marker: string): Promise<number> {
  const rows = await server.sql.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
      where state = 'active' and pid <> pg_backend_pid() and position($1 in query) > 0`,
    [marker],
  );
  return rows[0]!.n;
}

/** The contract's envelope for a failure, and that nothing internal leaks from it. */
export function expectFailure(r: Response, code: string, status?: number): void {
  expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: false, data: null, errorCode: code });
  expect(typeof r.body.summary).toBe('string');
  expect(typeof r.body.error.message).toBe('string');
  if (status !== undefined) expect(r.status).toBe(status);
  expectNoLeak(r);
}

export function expectNoLeak(r: Response): void {
  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  expect(text).not.toContain('/tmp');
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/\bat \S+ \(|\s at \S+:\d+:\d+/);
}
