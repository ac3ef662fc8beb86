/**
 * Sign-in with an identity provider's JWTs, against a real issuer on
 * loopback (oauth2-mock-server: discovery, JWKS, signed tokens): the happy
 * path through real routes, every refusal, key rotation, default roles, the
 * prefix and the principal's length, with static tokens working beside it.
 */
import { createPublicKey } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const AUDIENCE = 'sluice-api';
let idp: OAuth2Server;
let issuer: string;
let server: TestServer;

/** The issuer's key ids, in the order they were added. */
function kids(): string[] {
  return idp.issuer.keys.toJSON().map((k) => k.kid as string);
}

/** A token the issuer signs with its first key (or `kid`): sub alice, for this audience, valid an hour; `claims` override (undefined drops one). */
async function jwt(claims: Record<string, unknown> = {}, kid: string = kids()[0]!): Promise<string> {
  return idp.issuer.buildToken({
    kid,
    scopesOrTransform: (_header, payload) => {
      Object.assign(payload, { sub: 'alice', aud: AUDIENCE }, claims);
    },
  });
}

function bearer(token: string) {
  return { token: null, headers: { authorization: `Bearer ${token}` } } as const;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** Asserts a 401 UNAUTHORIZED whose sentence matches `sentence` and holds none of the token's or the keys' text. */
async function expectRefused(token: string, sentence: RegExp): Promise<void> {
  const r = await server.request('/api/me', bearer(token));
  expect(r.status).toBe(401);
  expect(r.body.errorCode).toBe('UNAUTHORIZED');
  expect(r.body.summary).toMatch(sentence);
  const text = JSON.stringify(r.body);
  for (const part of token.split('.')) if (part.length > 8) expect(text).not.toContain(part);
  for (const key of idp.issuer.keys.toJSON(true)) for (const field of ['n', 'd', 'p', 'q']) expect(text).not.toContain(String(key[field]));
}

beforeAll(async () => {
  idp = new OAuth2Server();
  await idp.issuer.keys.generate('RS256');
  await idp.start(0, '127.0.0.1');
  issuer = `http://127.0.0.1:${idp.address().port}`;
  idp.issuer.url = issuer;
  // No cooldown: a token naming a key the cached set lacks fetches the set again at once.
  server = await startTestServer({ SLUICE_OIDC_ISSUER: issuer, SLUICE_OIDC_AUDIENCE: AUDIENCE, SLUICE_OIDC_JWKS_COOLDOWN_S: '0' });
});

afterAll(async () => {
  await server?.stop();
  await idp?.stop();
});

describe('OIDC sign-in', () => {
  it('answers /api/me for a verified JWT: the principal behind the prefix, the claimed roles, every datasource', async () => {
    const r = await server.request('/api/me', bearer(await jwt({ sluice_roles: ['analyst'] })));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ principal: 'oidc:alice', roles: ['analyst'], datasources: ['*'], auth: 'oidc' });
    expect(r.body.data.usage.principal).toMatchObject({ artifacts: 0, logicalBytes: 0 });
    expect(r.body.data.usage.workspace).toBeUndefined();
  });

  it('keeps static tokens working beside it, in X-Token and in Authorization: Bearer', async () => {
    const viaHeader = await server.request('/api/me', { token: TOKENS.analyst });
    expect(viaHeader.body.data).toMatchObject({ principal: 'analyst', roles: ['analyst'], datasources: ['*'], auth: 'token' });
    const viaBearer = await server.request('/api/me', bearer(TOKENS.admin));
    expect(viaBearer.body.data).toMatchObject({ principal: 'admin', roles: ['admin'], auth: 'token' });
    expect(viaBearer.body.data.usage.workspace).toBeDefined();
  });

  it('gives a token without a roles claim the default role, never more, and ignores role names it does not know', async () => {
    const plain = await server.request('/api/me', bearer(await jwt()));
    expect(plain.body.data.roles).toEqual(['reader']);
    const unknown = await server.request('/api/me', bearer(await jwt({ sluice_roles: ['superuser', 'root'] })));
    expect(unknown.body.data.roles).toEqual(['reader']);
    const mixed = await server.request('/api/me', bearer(await jwt({ sluice_roles: 'superuser analyst' })));
    expect(mixed.body.data.roles).toEqual(['analyst']);
    const explores = await server.request('/api/semantic/explores', bearer(await jwt({ sluice_roles: ['superuser'] })));
    expect(explores.status).toBe(403);
    expect(explores.body.errorCode).toBe('FORBIDDEN');
  });

  it('limits the datasources to those claimed', async () => {
    const token = await jwt({ sluice_datasources: ['elsewhere'] });
    const me = await server.request('/api/me', bearer(token));
    expect(me.body.data.datasources).toEqual(['elsewhere']);
    const query = await server.request('/api/queries', { ...bearer(token), body: { sql: 'select 1' } });
    expect(query.status).toBe(404);
  });

  it('runs a query as the OIDC principal, whose artifact a static token of the same name cannot see, and the other way round', async () => {
    // sub "analyst" is the static analyst token's principal name; behind the prefix it is someone else.
    const token = await jwt({ sub: 'analyst', sluice_roles: ['analyst'] });
    const q = await server.request('/api/queries', { ...bearer(token), body: { sql: 'select 42 as answer', materialize: 'always' } });
    expect(q.status).toBe(200);
    expect(q.body.data.preview.rows).toEqual([[42]]);
    const mine = q.body.data.artifact.id as string;
    expect((await server.request(`/api/artifacts/${mine}`, bearer(token))).status).toBe(200);
    const byStatic = await server.request(`/api/artifacts/${mine}`, { token: TOKENS.analyst });
    expect(byStatic.status).toBe(404);
    const theirs = await createArtifact(server, 'select 7 as seven', TOKENS.analyst);
    expect((await server.request(`/api/artifacts/${theirs}`, bearer(token))).status).toBe(404);
    const me = await server.request('/api/me', bearer(token));
    expect(me.body.data.principal).toBe('oidc:analyst');
    expect(me.body.data.usage.principal.artifacts).toBe(1);
  });

  it('accepts any principal claim of up to 200 characters (provider ids, e-mail addresses) and refuses a longer one', async () => {
    for (const sub of ['auth0|123', 'ana.lyst+x@example.com', 'ü/../../etc/passwd', 'a'.repeat(200)]) {
      const r = await server.request('/api/me', bearer(await jwt({ sub })));
      expect(r.status).toBe(200);
      expect(r.body.data.principal).toBe(`oidc:${sub}`);
    }
    await expectRefused(await jwt({ sub: 'a'.repeat(201) }), /sub claim is longer than 200 characters/);
    await expectRefused(await jwt({ sub: 'alice\nadmin' }), /sub claim holds a control character/);
    await expectRefused(await jwt({ sub: undefined }), /no sub claim/);
    await expectRefused(await jwt({ sub: 12 }), /no sub claim/);
  });

  it('refuses claims of the wrong shape rather than guessing', async () => {
    await expectRefused(await jwt({ sluice_roles: { admin: true } }), /sluice_roles claim must be a list of names/);
    await expectRefused(await jwt({ sluice_datasources: [1, 2] }), /sluice_datasources claim must be a list of names/);
  });

  it('refuses a wrong audience, a wrong issuer, an expired token, one not valid yet and one without expiry, each saying which', async () => {
    await expectRefused(await jwt({ aud: 'another-api' }), /audience \(aud\) does not include sluice-api/);
    await expectRefused(await jwt({ iss: 'https://evil.example.com' }), /not issued by http:\/\/127\.0\.0\.1:\d+ \(iss\)/);
    await expectRefused(await jwt({ exp: now() - 3600 }), /expired \(exp is in the past\)/);
    await expectRefused(await jwt({ nbf: now() + 3600 }), /not valid yet \(nbf is in the future\)/);
    await expectRefused(await jwt({ exp: undefined }), /no expiry \(exp\)/);
  });

  it('allows a small clock skew on exp and nbf', async () => {
    expect((await server.request('/api/me', bearer(await jwt({ exp: now() - 5 })))).status).toBe(200);
    expect((await server.request('/api/me', bearer(await jwt({ nbf: now() + 5 })))).status).toBe(200);
  });

  it('refuses a token signed with a key the issuer does not publish, under its kid or under another', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const payload = { sub: 'mallory', aud: AUDIENCE, iss: issuer, sluice_roles: ['admin'] };
    const underTheirKid = await new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: kids()[0]! }).setExpirationTime('1h').sign(privateKey);
    await expectRefused(underTheirKid, /signature does not verify/);
    const underOwnKid = await new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'not-published' }).setExpirationTime('1h').sign(privateKey);
    await expectRefused(underOwnKid, /publishes no key with its key id \(kid\)/);
  });

  it('refuses alg none and an HS256 token whose secret is the issuer\u2019s public key', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const claims = { sub: 'mallory', aud: AUDIENCE, iss: issuer, exp: now() + 3600, sluice_roles: ['admin'] };
    await expectRefused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`, /signed with "none", which is not one the identity provider declares \(RS256\)/);
    const jwk = idp.issuer.keys.toJSON()[0]!;
    for (const secret of [createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string, JSON.stringify(jwk)]) {
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: jwk.kid as string }).sign(new TextEncoder().encode(secret));
      await expectRefused(forged, /signed with "HS256", which is not one the identity provider declares/);
    }
  });

  it('refuses a malformed token with a sentence, and says how to sign in when the bearer is neither a token nor a JWT', async () => {
    await expectRefused('abc.def.ghi', /not a well-formed JWT/);
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: kids()[0] })).toString('base64url');
    await expectRefused(`${header}.bm90IGpzb24.c2ln`, /not a well-formed signed JWT|signature does not verify/);
    const unknown = await server.request('/api/me', bearer('no-such-token-at-all'));
    expect(unknown.status).toBe(401);
    expect(unknown.body.summary).toMatch(/identity provider\u2019s JWT in Authorization: Bearer/);
  });

  it('accepts a token signed with a key the issuer adds after the server cached its key set', async () => {
    // The set is cached by now (earlier tests); the new key is not in it.
    expect((await server.request('/api/me', bearer(await jwt()))).status).toBe(200);
    await idp.issuer.keys.generate('RS256');
    const rotated = kids()[1]!;
    const r = await server.request('/api/me', bearer(await jwt({ sub: 'rotated' }, rotated)));
    expect(r.status).toBe(200);
    expect(r.body.data.principal).toBe('oidc:rotated');
    // The old key still works while the issuer publishes it.
    expect((await server.request('/api/me', bearer(await jwt()))).status).toBe(200);
  });

  it('applies to /mcp as to /api', async () => {
    const r = await server.request('/mcp', { ...bearer(await jwt({ aud: 'another-api' })), body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(r.status).toBe(401);
    expect(r.body.summary).toMatch(/audience/);
  });
});
