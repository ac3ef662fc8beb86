/**
 * /docs: Swagger UI served from Sluice's own copy of swagger-ui-dist, so the
 * explorer works with no internet access. Only the files the page needs are
 * served, from a fixed list: no request names a path on disk. The page's
 * start-up script is served as an asset too, so a Content-Security-Policy
 * can hold the page to this origin (no inline or remote script, no remote
 * fetch: Swagger UI's online validator is off), and "Try it out" is pointed
 * at this origin too.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Env, Hono } from 'hono';

// "Try it out" calls the server that serves this page, whatever the document's
// servers list says (it names the default address, which this one may not be).
const INIT_SCRIPT = `fetch('/openapi.json')
  .then((response) => response.json())
  .then((spec) => {
    spec.servers = [{ url: window.location.origin, description: 'This server' }];
    window.ui = SwaggerUIBundle({
      spec,
      dom_id: '#ui',
      deepLinking: true,
      persistAuthorization: true,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
    });
  })
  .catch((error) => {
    document.getElementById('ui').textContent = 'Could not load /openapi.json: ' + error.message;
  });
`;

interface Asset {
  type: string;
  /** A file of swagger-ui-dist, or the body itself. */
  file?: string;
  body?: string;
}

/** Served names: a Map, so no inherited property name ("constructor") can look like an asset. */
const ASSETS = new Map<string, Asset>([
  ['swagger-ui.css', { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' }],
  ['swagger-ui-bundle.js', { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' }],
  ['favicon-32x32.png', { type: 'image/png', file: 'favicon-32x32.png' }],
  ['sluice-docs.js', { type: 'text/javascript; charset=utf-8', body: INIT_SCRIPT }],
]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sluice API</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>body { margin: 0 }</style>
</head>
<body>
  <div id="ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/sluice-docs.js"></script>
</body>
</html>
`;

/** Swagger UI sets inline styles and uses data: images; everything else comes from this origin. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function assetDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

export function registerDocs<E extends Env>(app: Hono<E>): void {
  const dir = assetDir();
  const cache = new Map<string, Uint8Array>();
  app.get('/docs', (c) => c.html(PAGE, 200, { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' }));
  app.get('/docs/assets/:file', async (c) => {
    const name = c.req.param('file');
    const asset = ASSETS.get(name);
    if (asset === undefined) return c.notFound();
    let body = cache.get(name);
    if (body === undefined) {
      body = asset.file === undefined ? new TextEncoder().encode(asset.body ?? '') : new Uint8Array(await readFile(join(dir, asset.file)));
      cache.set(name, body);
    }
    return c.body(body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': asset.type,
      'cache-control': 'public, max-age=86400',
      'x-content-type-options': 'nosniff',
    });
  });
}
