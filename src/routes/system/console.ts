/**
 * /console: the web console for people, served by Sluice itself (the page,
 * one script and one stylesheet, from a fixed list: no request names a path
 * on disk), and `/` redirecting there. The page holds no inline script or
 * style, so its Content-Security-Policy keeps everything to this origin; the
 * console talks only to the documented /api routes, with the person's token.
 *
 * The script and stylesheet come from dist/console-bundle/ when `npm start`
 * built them; running from the sources (tsx, Deno, Bun) they are bundled in
 * memory from console/ on the first request for them, once, so a server that
 * is never asked for the console never starts esbuild.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env, Hono } from 'hono';
import { bundleConsole, CONSOLE_BUNDLE_DIR, CONSOLE_FILES, type ConsoleBundle } from './console-bundle.ts';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sluice console</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/console/assets/${CONSOLE_FILES.stylesheet}">
</head>
<body>
  <div id="app"><noscript>The Sluice console needs JavaScript.</noscript></div>
  <script src="/console/assets/${CONSOLE_FILES.script}"></script>
</body>
</html>
`;

/** Charts arrive as blob: images; the empty favicon is a data: URL. Nothing else leaves this origin. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

const ASSETS = new Map<string, { type: string; part: keyof ConsoleBundle }>([
  [CONSOLE_FILES.script, { type: 'text/javascript; charset=utf-8', part: 'script' }],
  [CONSOLE_FILES.stylesheet, { type: 'text/css; charset=utf-8', part: 'stylesheet' }],
]);

/** From src/routes/system/ (or dist/src/routes/system/): the project root (or dist/). */
const ROOT = new URL('../../../', import.meta.url);

async function loadBundle(): Promise<ConsoleBundle> {
  const prebuilt = fileURLToPath(new URL(`${CONSOLE_BUNDLE_DIR}/`, ROOT));
  try {
    const [script, stylesheet] = await Promise.all([readFile(join(prebuilt, CONSOLE_FILES.script)), readFile(join(prebuilt, CONSOLE_FILES.stylesheet))]);
    return { script: new Uint8Array(script), stylesheet: new Uint8Array(stylesheet) };
  } catch {
    return bundleConsole(fileURLToPath(new URL('console/', ROOT)));
  }
}

export function registerConsole<E extends Env>(app: Hono<E>): void {
  let bundle: Promise<ConsoleBundle> | null = null;
  const assets = (): Promise<ConsoleBundle> => {
    // A failed bundle is tried again on the next request rather than remembered.
    bundle ??= loadBundle().catch((error: unknown) => {
      bundle = null;
      throw error;
    });
    return bundle;
  };
  app.get('/', (c) => c.redirect('/console', 302));
  app.get('/console', (c) => c.html(PAGE, 200, { ...HEADERS, 'cache-control': 'no-cache' }));
  app.get('/console/assets/:file', async (c) => {
    const asset = ASSETS.get(c.req.param('file'));
    if (asset === undefined) return c.notFound();
    const body = (await assets())[asset.part];
    return c.body(body as Uint8Array<ArrayBuffer>, 200, { ...HEADERS, 'content-type': asset.type, 'cache-control': 'no-cache' });
  });
}
