/**
 * A typed client for the Sluice API, generated from openapi/openapi.json:
 * `schema.d.ts` is written by `npm run openapi` (openapi-typescript), and
 * openapi-fetch turns it into typed calls. A route changed without the
 * document changing breaks the code that uses this client.
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, paths } from './schema.d.ts';

export function createSluiceClient(baseUrl: string, token: string) {
  return createClient<paths>({ baseUrl, headers: { 'x-token': token } });
}

export type SluiceClient = ReturnType<typeof createSluiceClient>;
