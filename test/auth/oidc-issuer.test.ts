/**
 * The identity provider's discovery document: fetched lazily, and fetched
 * again after a failure (so a provider that was down is used once it is
 * up), and refused when it names another issuer. Against a real issuer on
 * loopback, through the verifier the server uses.
 */
import { OAuth2Server } from 'oauth2-mock-server';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type OidcSetting } from '../../src/config.ts';
import { OidcVerifier } from '../../src/auth/oidc-verifier.ts';
import { SluiceError } from '../../src/errors.ts';

const running: OAuth2Server[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) if (s.listening) await s.stop();
});

async function startIssuer(alg = 'RS256'): Promise<{ idp: OAuth2Server; url: string }> {
  const idp = new OAuth2Server();
  await idp.issuer.keys.generate(alg);
  await idp.start(0, '127.0.0.1');
  running.push(idp);
  const url = `http://127.0.0.1:${idp.address().port}`;
  idp.issuer.url = url;
  return { idp, url };
}

function setting(issuer: string): OidcSetting {
  return loadConfig({ SLUICE_OIDC_ISSUER: issuer, SLUICE_OIDC_AUDIENCE: 'api' }).oidc!;
}

function token(idp: OAuth2Server): Promise<string> {
  return idp.issuer.buildToken({ scopesOrTransform: (_h, p) => Object.assign(p, { sub: 'bob', aud: 'api' }) });
}

async function refusal(promise: Promise<unknown>): Promise<SluiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SluiceError);
  return error as SluiceError;
}

describe('OIDC issuer discovery', () => {
  it('refuses while the issuer cannot be reached, retryably, and verifies once it answers', async () => {
    const probe = await startIssuer();
    const port = probe.idp.address().port;
    await probe.idp.stop();
    const lines: string[] = [];
    const verifier = new OidcVerifier(setting(`http://127.0.0.1:${port}`), (line) => lines.push(line));
    const idp = new OAuth2Server();
    await idp.issuer.keys.generate('RS256');
    idp.issuer.url = `http://127.0.0.1:${port}`;
    const early = await refusal(verifier.verify(await token(idp)));
    expect(early.code).toBe('UNAUTHORIZED');
    expect(early.status).toBe(401);
    expect(early.message).toMatch(/identity provider cannot be reached; retry shortly/);
    expect(early.details).toEqual({ reason: 'ISSUER_UNAVAILABLE', retryable: true });
    expect(lines.join('\n')).toMatch(/cannot be reached; the next JWT tries again/);

    await idp.start(port, '127.0.0.1');
    running.push(idp);
    idp.issuer.url = `http://127.0.0.1:${port}`;
    const principal = await verifier.verify(await token(idp));
    expect(principal).toMatchObject({ id: 'oidc:bob', roles: ['reader'], auth: 'oidc' });
  });

  it('refuses every token when the discovery document names another issuer', async () => {
    const { idp, url } = await startIssuer();
    const verifier = new OidcVerifier(setting(url), () => undefined);
    const good = await token(idp);
    idp.issuer.url = 'https://someone-else.example.com';
    const error = await refusal(verifier.verify(good));
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toMatch(/publishes a discovery document for another issuer/);
  });

  it('accepts only the algorithms the issuer declares: ES256 refused where discovery declares RS256', async () => {
    // The mock's discovery document declares RS256 only; its key here is ES256.
    const { idp, url } = await startIssuer('ES256');
    const verifier = new OidcVerifier(setting(url), () => undefined);
    const error = await refusal(verifier.verify(await token(idp)));
    expect(error.message).toMatch(/signed with "ES256", which is not one the identity provider declares \(RS256\)/);
  });

  it('does not fetch the key set again within the cooldown: a new key is taken only once it has passed', async () => {
    const { idp, url } = await startIssuer();
    const cooled = new OidcVerifier({ ...setting(url), jwksCooldownMs: 3_600_000 }, () => undefined);
    const eager = new OidcVerifier({ ...setting(url), jwksCooldownMs: 0 }, () => undefined);
    const first = idp.issuer.keys.toJSON()[0]!.kid as string;
    const sign = (kid: string) => idp.issuer.buildToken({ kid, scopesOrTransform: (_h, p) => Object.assign(p, { sub: 'bob', aud: 'api' }) });
    await cooled.verify(await sign(first));
    await eager.verify(await sign(first));
    await idp.issuer.keys.generate('RS256');
    const added = idp.issuer.keys.toJSON()[1]!.kid as string;
    const error = await refusal(cooled.verify(await sign(added)));
    expect(error.message).toMatch(/publishes no key with its key id \(kid\)/);
    expect(await eager.verify(await sign(added))).toMatchObject({ id: 'oidc:bob' });
  });
});
