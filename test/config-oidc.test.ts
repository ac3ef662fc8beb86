/** The OIDC variables: defaults, and every bad value stopping start-up with a message that names its variable. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

const ISSUER = { SLUICE_OIDC_ISSUER: 'https://login.example.com/realms/data', SLUICE_OIDC_AUDIENCE: 'sluice' };

describe('OIDC configuration', () => {
  it('is off without SLUICE_OIDC_ISSUER, and has the contract\u2019s defaults with it', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
    expect(loadConfig(ISSUER).oidc).toEqual({
      issuer: 'https://login.example.com/realms/data',
      audience: 'sluice',
      claims: { principal: 'sub', roles: 'sluice_roles', datasources: 'sluice_datasources' },
      principalPrefix: 'oidc:',
      defaultRoles: ['reader'],
      jwksCooldownMs: 30_000,
    });
  });

  it('takes the claim names, prefix and default roles it is given', () => {
    const oidc = loadConfig({
      ...ISSUER,
      SLUICE_OIDC_CLAIMS: '{"principal": "email", "roles": "realm_access.roles"}',
      SLUICE_OIDC_PRINCIPAL_PREFIX: 'sso|',
      SLUICE_OIDC_DEFAULT_ROLES: '["analyst"]',
    }).oidc!;
    expect(oidc.claims).toEqual({ principal: 'email', roles: 'realm_access.roles', datasources: 'sluice_datasources' });
    expect(oidc.principalPrefix).toBe('sso|');
    expect(oidc.defaultRoles).toEqual(['analyst']);
  });

  it.each([
    [{ SLUICE_OIDC_AUDIENCE: 'sluice' }, /SLUICE_OIDC_AUDIENCE is set but SLUICE_OIDC_ISSUER is not/],
    [{ SLUICE_OIDC_CLAIMS: '{}' }, /SLUICE_OIDC_CLAIMS is set but SLUICE_OIDC_ISSUER is not/],
    [{ SLUICE_OIDC_ISSUER: 'https://login.example.com' }, /SLUICE_OIDC_AUDIENCE must be set/],
    [{ ...ISSUER, SLUICE_OIDC_ISSUER: 'http://login.example.com' }, /SLUICE_OIDC_ISSUER must be an https:\/\/ URL/],
    [{ ...ISSUER, SLUICE_OIDC_ISSUER: 'https://user:secret@login.example.com' }, /SLUICE_OIDC_ISSUER must be/],
    [{ ...ISSUER, SLUICE_OIDC_ISSUER: 'not a url' }, /SLUICE_OIDC_ISSUER must be/],
    [{ ...ISSUER, SLUICE_OIDC_CLAIMS: '{"principal": ""}' }, /SLUICE_OIDC_CLAIMS is invalid at principal/],
    [{ ...ISSUER, SLUICE_OIDC_CLAIMS: '{"groups": "g"}' }, /SLUICE_OIDC_CLAIMS is invalid/],
    [{ ...ISSUER, SLUICE_OIDC_CLAIMS: 'sub' }, /SLUICE_OIDC_CLAIMS is not valid JSON/],
    [{ ...ISSUER, SLUICE_OIDC_PRINCIPAL_PREFIX: 'sso-' }, /SLUICE_OIDC_PRINCIPAL_PREFIX must .* hold one that a token principal cannot/],
    [{ ...ISSUER, SLUICE_OIDC_PRINCIPAL_PREFIX: 'x'.repeat(33) + ':' }, /SLUICE_OIDC_PRINCIPAL_PREFIX must be at most 32/],
    [{ ...ISSUER, SLUICE_OIDC_DEFAULT_ROLES: '["owner"]' }, /SLUICE_OIDC_DEFAULT_ROLES is invalid/],
    [{ ...ISSUER, SLUICE_OIDC_DEFAULT_ROLES: '[]' }, /SLUICE_OIDC_DEFAULT_ROLES is invalid/],
    [{ ...ISSUER, SLUICE_OIDC_JWKS_COOLDOWN_S: '-1' }, /SLUICE_OIDC_JWKS_COOLDOWN_S must be an integer/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
