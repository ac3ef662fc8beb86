/**
 * Starts a worker thread from a TypeScript entry file, on any runtime.
 *
 * Which file runs depends first on the build, then on the runtime. Compiled
 * by scripts/build.ts, this very file is a .js file and every entry has only
 * a .js twin beside where its .ts was: that twin is what runs, whichever
 * runtime runs the build (`npm start` on Node, `bun --bun run start` on Bun).
 * From the sources, Deno and Bun run the TypeScript entry as it is. Under
 * tsx (tests, benchmarks, development), Node does not carry tsx's ESM loader
 * hooks into worker threads (nodejs/node#47747): a worker made from a `.ts`
 * URL fails with ERR_UNKNOWN_FILE_EXTENSION. tsx's CommonJS hook patches
 * require() inside the thread that calls it, so an eval'd bootstrap
 * registers it there and then requires the entry. Entry files and what they
 * import therefore avoid top-level await and import.meta.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

const compiled = import.meta.url.endsWith('.js');
const runsTypeScript = 'Deno' in globalThis || 'Bun' in globalThis;

export interface SpawnOptions {
  workerData?: unknown;
  resourceLimits?: ResourceLimits;
}

export function spawnWorker(entry: URL, options: SpawnOptions = {}): Worker {
  const settings = { workerData: options.workerData, ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}) };
  if (compiled) return new Worker(new URL(entry.href.replace(/\.ts$/, '.js')), settings);
  if (runsTypeScript) return new Worker(entry, settings);
  const entryPath = fileURLToPath(entry);
  const tsxCjs = createRequire(import.meta.url).resolve('tsx/cjs/api');
  // Only import() here: an inherited --input-type=module makes eval'd code an ES module without require.
  const bootstrap = `import('node:module').then(({ createRequire }) => {
    const require = createRequire(${JSON.stringify(entryPath)});
    require(${JSON.stringify(tsxCjs)}).register();
    require(${JSON.stringify(entryPath)});
  });`;
  return new Worker(bootstrap, { eval: true, ...settings });
}
