/**
 * SLUICE_DATASOURCES as start-up reads it: an id given twice (`default`
 * included, which DATABASE_URL names) and a kind no driver speaks stop
 * start-up with a message naming the variable; a named kind is kept.
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

  it('refuses a key it does not know rather than dropping it, so a setting it cannot apply never goes unnoticed', () => {
    const entries = list([{ id: 'shop', url: 'sqlite:///srv/shop.db', claimSettings: { 'sluice.tenant': 'tenant' } }]);
    expect(() => loadConfig({ SLUICE_DATASOURCES: entries })).toThrow(/^SLUICE_DATASOURCES is invalid at 0: .*claimSettings/);
  });

  it('refuses a kind no driver speaks, naming the variable and the field', () => {
    expect(() => loadConfig({ SLUICE_DATASOURCES: list([{ id: 'x', kind: 'oracle', url: 'oracle://db.example/x' }]) })).toThrow(/^SLUICE_DATASOURCES is invalid at 0\.kind/);
  });
});
