/**
 * A typed client for the Sluice API, generated from openapi/openapi.json by
 * `npm run openapi`: `schema.d.ts` (openapi-typescript) types every path and
 * operation, `operations.ts` names each operation's method and path by its
 * operationId. The client offers one call per operationId
 * (`client.submitQuery({ body })`, `client.readArtifact({ params, body })`),
 * each typed like the openapi-fetch call it makes; `client.byPath` is the
 * openapi-fetch client itself (`client.byPath.POST('/api/queries', ...)`).
 * A route changed without the document changing breaks the code that uses
 * this client.
 */
import createClient, { type Client, type ClientForPath } from 'openapi-fetch';
import { OPERATIONS } from './operations.ts';
import type { paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';
export { OPERATIONS } from './operations.ts';

type Operations = typeof OPERATIONS;
export type OperationId = keyof Operations;

/** The openapi-fetch call of one operation: its path's client, at its method. */
type NamedCall<K extends OperationId> = ClientForPath<paths[Operations[K]['path']], `${string}/${string}`>[Operations[K]['method']];

export type SluiceCalls = { [K in OperationId]: NamedCall<K> };

export type SluiceClient = SluiceCalls & { byPath: Client<paths> };

export function createSluiceClient(baseUrl: string, token: string): SluiceClient {
  const byPath = createClient<paths>({ baseUrl, headers: { 'x-token': token } });
  // Typed per literal method and path; here both vary per entry, and NamedCall gives each entry its type back.
  const request = byPath.request as (method: string, path: string, init?: object) => Promise<unknown>;
  const calls: Record<string, (init?: object) => Promise<unknown>> = {};
  for (const [operationId, { method, path }] of Object.entries(OPERATIONS)) {
    calls[operationId] = (init) => request(method, path, init);
  }
  // The table and the types come from the same document, so each entry is the call its type says.
  return { ...(calls as SluiceCalls), byPath };
}
