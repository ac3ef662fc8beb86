/**
 * SLUICE_DATASOURCES as start-up reads it: an id given twice (`default`
 * included, which DATABASE_URL names), a kind no driver speaks, and
 * claimSettings that are malformed or on an engine that cannot apply them
 * stop start-up with a message naming the variable; a named kind and a
 * PostgreSQL entry's claimSettings are kept.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

const list = (entries: unknown[]) => JSON.stringify(entries);

describe('SLUICE_DATASOURCES', () => {
  it('keeps a named kind beside the URL', () => {
    const config = loadConfig({ SLUICE_DATASOURCES: list([{ id: 'shop', kind: 'postgres', url: 'postgres://u@db.example/shop' }]) });
    expect(config.datasources).toEqual([{ id: 'shop', kind: 'postgres', url: 'postgres://u@db.example/shop' }]);
  });

  it('refuses an id given twice', () => {
    const twice = list([
      { id: 'shop', url: 'postgres://u@a.example/shop' },
      { id: 'shop', url: 'postgres://u@b.example/shop' },
    ]);
    expect(() => loadConfig({ SLUICE_DATASOURCES: twice })).toThrow(/^SLUICE_DATASOURCES lists the id "shop" twice/);
  });

  it('refuses "default" when DATABASE_URL names it already, and takes it when not', () => {
    const entries = list([{ id: 'default', url: 'postgres://u@a.example/shop' }]);
    expect(() => loadConfig({ SLUICE_DATASOURCES: entries, DATABASE_URL: 'postgres://u@b.example/shop' })).toThrow(/"default", which DATABASE_URL already names/);
    expect(loadConfig({ SLUICE_DATASOURCES: entries }).datasources.map((d) => d.id)).toEqual(['default']);
  });

  it('refuses a key it does not know rather than dropping it, so a misspelt setting never goes unnoticed', () => {
    const entries = list([{ id: 'shop', url: 'postgres://u@db.example/shop', claimSetting: { 'sluice.tenant': 'tenant' } }]);
    expect(() => loadConfig({ SLUICE_DATASOURCES: entries })).toThrow(/^SLUICE_DATASOURCES is invalid at 0: .*claimSetting/);
  });

  it('keeps claimSettings on a PostgreSQL entry, named by its kind or by its URL', () => {
    const byScheme = loadConfig({ SLUICE_DATASOURCES: list([{ id: 'shop', url: 'postgresql://u@db.example/shop', claimSettings: { 'sluice.tenant': 'tenant', 'app.region': 'https://example.com/region' } }]) });
    expect(byScheme.datasources[0]?.claimSettings).toEqual({ 'sluice.tenant': 'tenant', 'app.region': 'https://example.com/region' });
    const byKind = loadConfig({ SLUICE_DATASOURCES: list([{ id: 'shop', kind: 'postgres', url: 'postgres://u@db.example/shop', claimSettings: { 'sluice.tenant': 'org.tenant' } }]) });
    expect(byKind.datasources[0]?.claimSettings).toEqual({ 'sluice.tenant': 'org.tenant' });
  });

  it.each([
    ['sqlite', 'sqlite:///srv/shop.db'],
    ['mysql', 'mysql://u@db.example/shop'],
    ['files', 'file:///srv/shop'],
  ])('refuses claimSettings on kind %s, which cannot apply them, naming the variable and the entry', (kind, url) => {
    for (const entry of [{ id: 'shop', url }, { id: 'shop', kind, url }]) {
      const entries = list([{ ...entry, claimSettings: { 'sluice.tenant': 'tenant' } }]);
      expect(() => loadConfig({ SLUICE_DATASOURCES: entries })).toThrow(/^SLUICE_DATASOURCES: datasource "shop" has claimSettings, which only a PostgreSQL datasource can apply/);
    }
  });

  it.each([
    ['a built-in setting, which a claim must never reach', { role: 'tenant' }],
    ['a built-in setting', { statement_timeout: 'tenant' }],
    ['a name with a quote', { "sluice.ten'ant": 'tenant' }],
    ['a name with three parts', { 'a.b.c': 'tenant' }],
    ['a name with a space', { 'sluice. tenant': 'tenant' }],
    ['a part longer than 63', { [`sluice.${'t'.repeat(64)}`]: 'tenant' }],
    ['an empty claim name', { 'sluice.tenant': '' }],
    ['a claim name with a control character', { 'sluice.tenant': 'ten\nant' }],
    ['a claim name that is not a string', { 'sluice.tenant': 7 }],
    ['no settings at all', {}],
    ['an array', ['sluice.tenant']],
  ])('refuses claimSettings with %s', (_, claimSettings) => {
    const entries = list([{ id: 'shop', url: 'postgres://u@db.example/shop', claimSettings }]);
    expect(() => loadConfig({ SLUICE_DATASOURCES: entries })).toThrow(/^SLUICE_DATASOURCES is invalid at 0\.claimSettings/);
  });

  it('refuses a kind no driver speaks, naming the variable and the field', () => {
    expect(() => loadConfig({ SLUICE_DATASOURCES: list([{ id: 'x', kind: 'oracle', url: 'oracle://db.example/x' }]) })).toThrow(/^SLUICE_DATASOURCES is invalid at 0\.kind/);
  });
});
