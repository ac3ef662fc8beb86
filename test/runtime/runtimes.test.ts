/**
 * The documented start commands serve on every runtime: `npm start` (Node on
 * the build), `bun --bun run start` (Bun on that same build), `deno task
 * start` and Bun on the sources. Each runtime really runs the server (no
 * Node behind a script), checked over HTTP by the smoke script.
 */
import { describe, expect, it } from 'vitest';
import { smoke } from '../../scripts/runtime-smoke.ts';
import { EMBEDDED } from '../helpers/server.ts';

// The smoke servers need a PostgreSQL where a cancel stops the statement; on the embedded database, npm run smoke:runtimes covers them.
describe.skipIf(EMBEDDED).each(['node', 'bun', 'deno', 'bun-sources'])('%s', (target) => {
  it('serves a query with an artifact, two pages by the cursor and a cancel, then exits cleanly', async () => {
    expect(await smoke(target)).toEqual([
      'readyz',
      'healthz',
      'query with an artifact',
      'page read',
      'next page by the cursor',
      'slow query answered 202',
      'slow query running on the database',
      'cancel',
      'statement stopped on the database',
      'clean exit on SIGTERM',
      'nothing left running',
    ]);
  }, 180_000);
});
