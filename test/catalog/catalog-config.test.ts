import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('SLUICE_CATALOG_URL', () => {
  it('is unset by default: the catalog is SQLite in the data dir', () => {
    expect(loadConfig({}).catalogUrl).toBeUndefined();
    expect(loadConfig({ SLUICE_CATALOG_URL: '' }).catalogUrl).toBeUndefined();
  });

  it('takes a PostgreSQL URL as it is', () => {
    for (const url of ['postgres://sluice:pw@db.internal:5432/sluice', 'postgresql://db/sluice?sslmode=require']) {
      expect(loadConfig({ SLUICE_CATALOG_URL: url }).catalogUrl).toBe(url);
    }
  });

  it('refuses anything else without repeating the value, which may hold a password', () => {
    for (const url of ['mysql://u:topsecret@db/x', 'not a url topsecret', 'postgres://:topsecret@/x', 's3://bucket/topsecret']) {
      let message = '';
      try {
        loadConfig({ SLUICE_CATALOG_URL: url });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^SLUICE_CATALOG_URL must be a PostgreSQL URL/);
      expect(message).not.toContain('topsecret');
    }
  });
});
