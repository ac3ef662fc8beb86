/**
 * The same sources serve on Node (compiled, as `npm start` runs them), Deno
 * and Bun: each runtime really runs the server (no Node behind a script),
 * checked over HTTP by the smoke script.
 */
import { describe, expect, it } from 'vitest';
import { smoke } from '../../scripts/runtime-smoke.ts';
import { EMBEDDED } from '../helpers/server.ts';

// The smoke servers use TEST_DATABASE_URL's PostgreSQL; on the embedded database, npm run smoke:runtimes covers them.
describe.skipIf(EMBEDDED).each([
  ['node', 18_600],
  ['deno', 18_601],
  ['bun', 18_602],
])('on %s', (runtime, port) => {
  it('serves health, a query with an artifact, a page read and a cancel, and exits cleanly', async () => {
    const checks = await smoke(runtime, port);
    expect(checks).toEqual(['readyz', 'healthz', 'query with an artifact', 'page read', 'cancel', 'clean exit on SIGTERM']);
  }, 180_000);
});
