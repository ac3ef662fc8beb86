/**
 * spawnWorker starts a worker entry on every runtime, from the sources (the
 * .ts entry: Deno and Bun run it, Node through tsx) and from the compiled
 * build, where only the .js twin exists, whichever runtime runs that build
 * (`bun --bun run start` runs dist/ on Bun).
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../scripts/build.ts';

const run = promisify(execFile);
const ROOT = process.cwd();
const OUT = join(ROOT, 'node_modules', '.cache', `sluice-spawn-test-${process.pid}`);
const SOURCE = 'test/runtime/fixtures/spawn-echo.ts';
const COMPILED = join(OUT, 'test/runtime/fixtures/spawn-echo.js');
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const DENO = join(ROOT, 'node_modules/.bin/deno');
const BUN = join(ROOT, 'node_modules/.bin/bun');

beforeAll(async () => {
  await buildServer(OUT, ['src', 'test/runtime/fixtures']);
}, 60_000);
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

describe.each([
  ['the sources on node (tsx)', process.execPath, [TSX, SOURCE]],
  ['the sources on deno', DENO, ['run', '--allow-all', SOURCE]],
  ['the sources on bun', BUN, [SOURCE]],
  ['the compiled build on node', process.execPath, [COMPILED]],
  ['the compiled build on deno', DENO, ['run', '--allow-all', COMPILED]],
  ['the compiled build on bun', BUN, [COMPILED]],
])('spawnWorker from %s', (_, command, args) => {
  it('starts the worker entry, which answers', async () => {
    const { stdout } = await run(command, args, { cwd: ROOT });
    expect(stdout.trim()).toBe('echo: ping');
  }, 60_000);
});
