/**
 * /docs works with no internet access: the page names only assets Sluice
 * serves itself, each with the right content type; nothing else under
 * /docs/assets is served; and the document it loads is OpenAPI 3.1.
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

const EXPECTED_TYPES: Record<string, RegExp> = {
  '.js': /^text\/javascript; charset=utf-8$/,
  '.css': /^text\/css; charset=utf-8$/,
  '.png': /^image\/png$/,
};

/** Every URL the page loads: src= and href= attributes, and url(...) in inline styles. */
function referencedUrls(html: string): string[] {
  const urls = [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
  urls.push(...[...html.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/gi)].map((m) => m[1]!));
  return urls;
}

async function page() {
  const r = await server.request('/docs', { token: null });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/html/);
  return r.body as string;
}

describe('GET /docs', () => {
  it('answers without a token and references no remote URL', async () => {
    const html = await page();
    expect(html).toContain('<div id="ui">');
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']\/\//i); // no protocol-relative URLs either
  });

  it('holds the page to its own origin with a Content-Security-Policy', async () => {
    const r = await server.request('/docs', { token: null });
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
  });

  it('serves every asset the page references, with its content type', async () => {
    const urls = referencedUrls(await page());
    const assets = urls.filter((u) => u.startsWith('/docs/assets/'));
    expect(assets.length).toBeGreaterThanOrEqual(3);
    expect(urls.filter((u) => !u.startsWith('/docs/assets/')), 'references outside /docs/assets').toEqual([]);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    expect(assets.filter((a) => a.endsWith('.js')).length).toBeGreaterThanOrEqual(1);
    for (const asset of assets) {
      const response = await fetch(`${server.sluice.url}${asset}`);
      const body = new Uint8Array(await response.arrayBuffer());
      expect(response.status, asset).toBe(200);
      const ext = asset.slice(asset.lastIndexOf('.'));
      expect(EXPECTED_TYPES[ext], `no expected content type for ${asset}`).toBeDefined();
      expect(response.headers.get('content-type'), asset).toMatch(EXPECTED_TYPES[ext]!);
      expect(body.byteLength, asset).toBeGreaterThan(0);
    }
  });

  it('loads no remote resource from its scripts either', async () => {
    const urls = referencedUrls(await page()).filter((u) => u.endsWith('.js') && !u.includes('bundle'));
    for (const script of urls) {
      const text = await (await fetch(`${server.sluice.url}${script}`)).text();
      expect(text, script).not.toMatch(/https?:\/\//i);
    }
  });

  it('answers 404 for an unknown asset, a traversal attempt and inherited property names', async () => {
    for (const name of ['nope.js', '..%2Fpackage.json', '..%2F..%2Fpackage.json', '%2E%2E%2Fpackage.json', 'package.json', 'constructor', '__proto__', 'toString', 'swagger-ui-bundle.js.map']) {
      const r = await server.request(`/docs/assets/${name}`, { token: null });
      expect(r.status, name).toBe(404);
      expect(r.body, name).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    }
    const nested = await server.request('/docs/assets/../../package.json', { token: null });
    expect(nested.status).toBe(404);
    expect(JSON.stringify(nested.body)).not.toContain('"dependencies"');
  });
});

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served without a token', async () => {
    const r = await server.request('/openapi.json', { token: null });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body.openapi).toMatch(/^3\.1\.\d+$/);
    expect(r.body.info.title).toBe('Sluice');
    expect(Object.keys(r.body.paths)).toContain('/api/queries');
  });
});
