/**
 * /console over HTTP, no browser needed: `/` redirects there; the page names
 * only its own two assets and holds no inline script or style; the CSP keeps
 * everything to this origin; the assets are served with their content types
 * (bundled in memory here, the tests running from the sources); nothing else
 * under /console/assets is served; and the API document does not list it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('GET /console', () => {
  it('is where / redirects, without a token', async () => {
    const response = await fetch(`${server.sluice.url}/`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/console');
  });

  it('serves a page with no inline script or style, under a same-origin CSP', async () => {
    const r = await server.request('/console', { token: null });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const html = r.body as string;
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/<style/i);
    expect(html).not.toMatch(/\sstyle=/i);
    // Every script has a src and no body.
    expect([...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/gi)].map((m) => [/\ssrc=/.test(m[1]!), m[2]!.trim()])).toEqual([[true, '']]);
    const csp = r.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) expect(csp).toContain(directive);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/https?:/);
  });

  it('serves the script and stylesheet it names, which load nothing remote', async () => {
    const html = (await server.request('/console', { token: null })).body as string;
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.sort()).toEqual(['/console/assets/console.css', '/console/assets/console.js']);
    for (const asset of assets) {
      const response = await fetch(`${server.sluice.url}${asset}`);
      const text = await response.text();
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type'), asset).toBe(asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(text.length, asset).toBeGreaterThan(1000);
      // Remote URLs in the bundle would be fetched against the CSP; only XML namespaces (SVG in Preact) are allowed.
      expect(text.match(/https?:\/\/[^\s"'`)]+/g)?.filter((u) => !u.startsWith('http://www.w3.org/')) ?? [], asset).toEqual([]);
    }
  });

  it('answers 404 for anything else under /console/assets, and leaves the API document alone', async () => {
    for (const name of ['app.js', 'constructor', '..%2Fpackage.json', 'console.js.map']) {
      expect((await fetch(`${server.sluice.url}/console/assets/${name}`)).status, name).toBe(404);
    }
    const doc = (await server.request('/openapi.json', { token: null })).body;
    expect(Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/console'))).toEqual([]);
  });
});
