/**
 * Compiles src/ and workers/ to JavaScript for Node, one output file per
 * source file in the same tree (dist/src/…, dist/workers/…), so that every
 * `new URL('…', import.meta.url)` keeps pointing where it did; and bundles
 * the web console (console/) into dist/console-bundle/.
 *
 * Why: under tsx every thread pays for TypeScript at run time (the main
 * thread carries a whole loader-hooks thread, about 30 MB, and each worker
 * its own hook), and a server that runs four JavaScript threads feels that in
 * its resident memory. Deno and Bun run the sources as they are.
 *
 * Relative imports are rewritten from `.ts` to `.js`; packages stay imports
 * resolved from node_modules, so the output directory must sit inside the
 * project. It is written next to its final place and renamed into it: a
 * half-written tree is never what a starting server loads. When it comes out
 * the same as the tree in place, the tree in place is kept, so a second
 * `npm start` beside a running server leaves that server's files alone.
 *
 *   tsx scripts/build.ts [outdir=dist]   (what `npm start` runs first)
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { bundleConsole, CONSOLE_BUNDLE_DIR, CONSOLE_FILES } from '../src/routes/system/console-bundle.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What `npm start` needs; the benchmarks add bench/ to run their children compiled too. */
const SERVER_DIRS = ['src', 'workers'];

/** One digest of every file's path and bytes under `dir`. */
function treeDigest(dir: string): string {
  const hash = createHash('sha256');
  const visit = (sub: string): void => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(sub, entry.name);
      if (entry.isDirectory()) visit(path);
      else hash.update(`${path}\0`).update(readFileSync(join(dir, path))).update('\0');
    }
  };
  visit('');
  return hash.digest('hex');
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Keeps every import an import (no bundling) and points relative ones at the compiled file. */
const keepImports: Plugin = {
  name: 'keep-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const relativeImport = args.path.startsWith('./') || args.path.startsWith('../');
      return { path: relativeImport ? args.path.replace(/\.ts$/, '.js') : args.path, external: true };
    });
  },
};

export async function buildServer(outdir = join(ROOT, 'dist'), dirs = SERVER_DIRS): Promise<string> {
  const target = resolve(outdir);
  if (relative(ROOT, target).startsWith('..')) throw new Error(`the output directory must be inside ${ROOT}: packages resolve from its node_modules`);
  const staging = `${target}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    await build({
      absWorkingDir: ROOT,
      entryPoints: dirs.flatMap((dir) => typeScriptFiles(join(ROOT, dir))),
      outdir: staging,
      outbase: ROOT,
      bundle: true,
      plugins: [keepImports],
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    // The web console is browser code: one bundle, which /console serves from dist/console-bundle/.
    const consoleBundle = await bundleConsole(join(ROOT, 'console'));
    mkdirSync(join(staging, CONSOLE_BUNDLE_DIR));
    writeFileSync(join(staging, CONSOLE_BUNDLE_DIR, CONSOLE_FILES.script), consoleBundle.script);
    writeFileSync(join(staging, CONSOLE_BUNDLE_DIR, CONSOLE_FILES.stylesheet), consoleBundle.stylesheet);
    if (existsSync(target) && treeDigest(target) === treeDigest(staging)) return target;
    const previous = `${target}.previous-${process.pid}`;
    if (existsSync(target)) renameSync(target, previous);
    renameSync(staging, target);
    rmSync(previous, { recursive: true, force: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildServer(process.argv[2] === undefined ? undefined : resolve(process.argv[2]));
}
