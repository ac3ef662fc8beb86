/**
 * Bundles the web console (console/main.tsx and what it imports: Preact,
 * openapi-fetch, the generated client, its stylesheet) into one script and
 * one stylesheet, with esbuild. One definition for both places that need it:
 * `scripts/build.ts` writes the result into dist/ for `npm start`, and the
 * /console route bundles in memory when it runs from the sources (tsx, Deno,
 * Bun), where no prebuilt bundle exists.
 */
import { join } from 'node:path';

/** The prebuilt bundle's folder, next to src/ in the build output (dist/console-bundle/). */
export const CONSOLE_BUNDLE_DIR = 'console-bundle';
export const CONSOLE_FILES = { script: 'console.js', stylesheet: 'console.css' } as const;

export interface ConsoleBundle {
  script: Uint8Array;
  stylesheet: Uint8Array;
}

/** `sourceDir` is the console's source folder (the repository's console/). */
export async function bundleConsole(sourceDir: string): Promise<ConsoleBundle> {
  // Loaded only when a bundle is made: a server running prebuilt files never starts esbuild.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { console: join(sourceDir, 'main.tsx') },
    outdir: 'out',
    write: false,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.css': 'css' },
    legalComments: 'eof',
    logLevel: 'silent',
  });
  const file = (suffix: string): Uint8Array => {
    const found = result.outputFiles.find((f) => f.path.endsWith(suffix));
    if (found === undefined) throw new Error(`The console bundle has no ${suffix} output.`);
    return found.contents;
  };
  return { script: file(`/${CONSOLE_FILES.script}`), stylesheet: file(`/${CONSOLE_FILES.stylesheet}`) };
}
