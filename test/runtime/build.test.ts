/**
 * The compile step of `npm start` (scripts/build.ts): one JavaScript file per
 * source file in the same tree, relative imports pointing at the compiled
 * files, and an unchanged build leaving the tree in place alone.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../scripts/build.ts';

const OUT = join(process.cwd(), 'node_modules', '.cache', `sluice-build-test-${process.pid}`);

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

describe('buildServer', () => {
  it('writes the server and its worker entries as JavaScript that imports JavaScript', async () => {
    const out = await buildServer(OUT);
    for (const file of ['src/index.js', 'src/server.js', 'workers/query-worker.js', 'workers/embedded-postgres.js']) {
      expect(statSync(join(out, file)).isFile(), file).toBe(true);
    }
    const server = readFileSync(join(out, 'src/server.js'), 'utf8');
    expect(server).toContain('from "./app.js"');
    expect(server).not.toMatch(/from "\.{1,2}\/[^"]*\.ts"/);
    // Packages stay imports, resolved from node_modules at run time, not bundled in.
    expect(readFileSync(join(out, 'src/app.js'), 'utf8')).toMatch(/import \{ OpenAPIHono \} from "@hono\/zod-openapi"/);
  }, 60_000);

  it('keeps the tree in place when a build changes nothing', async () => {
    const before = statSync(OUT).ino;
    await buildServer(OUT);
    expect(statSync(OUT).ino).toBe(before);
  }, 60_000);

  it('refuses a directory outside the project, where packages would not resolve', async () => {
    await expect(buildServer(join(tmpdir(), 'sluice-build-elsewhere'))).rejects.toThrow(/must be inside/);
  });
});
