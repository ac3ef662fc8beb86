/**
 * The settings a caller's claims give a scoped datasource, without a
 * database (the policy itself is proven in postgres/claim-scope-rls.test.ts):
 * values from the verified claims only, by exact name or dotted path; every
 * caller that lacks a usable value refused with FORBIDDEN, never let through
 * unscoped; a datasource without claimSettings asks nothing of anyone.
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principals.ts';
import { MAX_SCOPE_VALUE, scopeFor } from '../../src/datasources/claim-scope.ts';
import { DatasourceRegistry } from '../../src/datasources/registry.ts';
import { SluiceError } from '../../src/errors.ts';
import { quietLogger } from '../../src/logger.ts';

const scoped = { id: 'shop', claimSettings: { 'sluice.tenant': 'tenant', 'app.region': 'https://example.com/claims.region' } };

function oidc(claims: Record<string, unknown>): Principal {
  return { id: 'oidc:alice', role: 'reader', roles: ['reader'], datasources: ['*'], auth: 'oidc', claims: { sub: 'alice', ...claims } };
}

function refusal(fn: () => unknown): SluiceError {
  try {
    fn();
  } catch (error) {
    return error as SluiceError;
  }
  throw new Error('expected a refusal');
}

describe('scopeFor', () => {
  it('takes each setting from its claim, by exact name (a namespaced claim) or by a dotted path', () => {
    expect(scopeFor(scoped, oidc({ tenant: 'acme', 'https://example.com/claims.region': 'eu' }))).toEqual([
      { name: 'sluice.tenant', value: 'acme' },
      { name: 'app.region', value: 'eu' },
    ]);
    expect(scopeFor({ id: 'shop', claimSettings: { 'sluice.tenant': 'org.tenant' } }, oidc({ org: { tenant: 'acme' } }))).toEqual([{ name: 'sluice.tenant', value: 'acme' }]);
  });

  it('asks nothing of a caller on a datasource without claimSettings, a static token included', () => {
    const token: Principal = { id: 'admin', role: 'admin', roles: ['admin'], datasources: ['*'], auth: 'token' };
    expect(scopeFor({ id: 'plain', claimSettings: {} }, token)).toEqual([]);
  });

  it.each([
    ['a static token, which carries no claims', { id: 'admin', role: 'admin', roles: ['admin'], datasources: ['*'], auth: 'token' } as Principal, /signed in with a token that carries no claims/],
    ['no such claim', oidc({ 'https://example.com/claims.region': 'eu' }), /has no "tenant" claim/],
    ['a null claim', oidc({ tenant: null, 'https://example.com/claims.region': 'eu' }), /has no "tenant" claim/],
    ['a number', oidc({ tenant: 7, 'https://example.com/claims.region': 'eu' }), /"tenant" claim is not a non-empty string/],
    ['a list', oidc({ tenant: ['a', 'b'], 'https://example.com/claims.region': 'eu' }), /"tenant" claim is not a non-empty string/],
    ['an empty string', oidc({ tenant: '', 'https://example.com/claims.region': 'eu' }), /"tenant" claim is not a non-empty string/],
    ['a value over the length', oidc({ tenant: 'a'.repeat(MAX_SCOPE_VALUE + 1), 'https://example.com/claims.region': 'eu' }), /longer than 256 characters/],
    ['a NUL', oidc({ tenant: 'acme\u0000', 'https://example.com/claims.region': 'eu' }), /control characters/],
    ['the second claim missing', oidc({ tenant: 'acme' }), /has no "https:\/\/example.com\/claims.region" claim/],
  ])('refuses %s with FORBIDDEN and a sentence that names the datasource, never the value', (_, principal, sentence) => {
    const error = refusal(() => scopeFor(scoped, principal));
    expect(error).toBeInstanceOf(SluiceError);
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toMatch(/^Datasource "shop" shows each caller the rows/);
    expect(error.message).toMatch(sentence);
    expect(error.message).not.toContain('aaaaaaaa');
  });

  it('a value of exactly the longest length is taken', () => {
    const value = '\u00e9'.repeat(MAX_SCOPE_VALUE);
    expect(scopeFor({ id: 'shop', claimSettings: { 'sluice.tenant': 'tenant' } }, oidc({ tenant: value }))[0]?.value).toBe(value);
  });
});

describe('DatasourceRegistry with claimSettings', () => {
  it('refuses them on an engine that cannot apply them, naming the variable', async () => {
    await expect(DatasourceRegistry.open([{ id: 'shop', url: 'sqlite:///tmp/claim-scope-none.db', claimSettings: { 'sluice.tenant': 'tenant' } }], 1, quietLogger)).rejects.toThrow(
      /^SLUICE_DATASOURCES: datasource "shop": claimSettings need a PostgreSQL server/,
    );
  });

  it('refuses a caller without the claim on that datasource, and serves it on one without scope', async () => {
    const registry = await DatasourceRegistry.open(
      [
        { id: 'scoped', url: 'postgres://nobody@127.0.0.1:1/none', claimSettings: { 'sluice.tenant': 'tenant' } },
        { id: 'plain', url: 'postgres://nobody@127.0.0.1:1/none' },
      ],
      1,
      quietLogger,
    );
    try {
      expect(refusal(() => registry.get(oidc({}), 'scoped')).code).toBe('FORBIDDEN');
      expect(registry.get(oidc({ tenant: 'acme' }), 'scoped').id).toBe('scoped');
      expect(registry.get(oidc({}), 'plain').id).toBe('plain');
      // A caller not allowed the datasource at all still finds it absent, not forbidden.
      expect(refusal(() => registry.get({ ...oidc({}), datasources: ['plain'] }, 'scoped')).code).toBe('NOT_FOUND');
    } finally {
      await registry.close();
    }
  });
});
