/**
 * Reading the audit trail in tests: through GET /api/admin/audit, as an
 * operator would, waiting (bounded) for entries the trail writes in
 * batches off the request path.
 */
import { expect } from 'vitest';
import { TOKENS, type TestServer } from '../helpers/server.ts';

export type Entry = Record<string, any>;

/** Requests answer before their entry is written: polls until `found` holds, for up to `ms`. */
export async function waitForEntries(server: Pick<TestServer, 'request'>, query: string, found: (items: Entry[]) => boolean, ms = 15_000): Promise<Entry[]> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await server.request(`/api/admin/audit?${query}`, { token: TOKENS.admin });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const items = r.body.data.items as Entry[];
    if (found(items) || Date.now() > until) return items;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The entries of one request (by its X-Request-Id), once `count` of them are written. */
export async function entriesOf(server: Pick<TestServer, 'request'>, requestId: string, count = 1): Promise<Entry[]> {
  const items = await waitForEntries(server, 'limit=500', (all) => all.filter((e) => e.requestId === requestId).length >= count);
  return items.filter((e) => e.requestId === requestId);
}
