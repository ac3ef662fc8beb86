/**
 * The documented start commands serve on every runtime: `npm start` (Node on
 * the build), `bun --bun run start` (Bun on that same build), `deno task
 * start` and Bun on the sources. Each runtime really runs the server (no
 * Node behind a script), checked over HTTP by the smoke script.
 */
import { describe, expect, it } from 'vitest';
import { smoke } from '../../scripts/runtime-smoke.ts';
import { EMBEDDED } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';

const NEEDS_CANCEL = 'the smoke servers need a PostgreSQL where a cancel stops the statement; npm run smoke:runtimes covers them on the embedded database';
// One line in the output for the four targets, which keep their plain names when they run.
const title = EMBEDDED ? `${skipNote(true, 'runtime smoke', NEEDS_CANCEL)}: %s` : '%s';
describe.skipIf(EMBEDDED).each(['node', 'bun', 'deno', 'bun-sources'])(title, (target) => {
  it('serves the console, a query with an artifact, two pages by the cursor, a plain page cut from a window and a cancel, then exits cleanly', async () => {
    expect(await smoke(target)).toEqual([
      'readyz',
      'healthz',
      'console page',
      'console asset /console/assets/console.css',
      'console asset /console/assets/console.js',
      'query with an artifact',
      'every row stored exactly',
      'page read',
      'next page by the cursor',
      'plain page from a window',
      'slow query answered 202',
      'slow query running on the database',
      'cancel',
      'statement stopped on the database',
      'clean exit on SIGTERM',
      'nothing left running',
    ]);
  }, 180_000);
});
