/**
 * A datasource URL means the same session on node-postgres as on libpq (psql):
 * query parameters node-postgres does not know are sent as settings.
 */
import { describe, expect, it } from 'vitest';
import { clientConfig } from '../../../src/datasources/postgres/export/pg-connect.ts';

describe('clientConfig', () => {
  it('passes unknown URL parameters as -c settings, escaped, and keeps the known ones', () => {
    const config = clientConfig('postgres://u:p%40ss@db.example:5433/shop?sslmode=disable&TimeZone=Asia%2FKathmandu&DateStyle=SQL%2C%20DMY');
    expect(config.options).toBe('-c TimeZone=Asia/Kathmandu -c DateStyle=SQL,\\ DMY');
    expect(config.connectionString).toBe('postgres://u:p%40ss@db.example:5433/shop?sslmode=disable');
    expect(config.application_name).toBe('sluice');
  });

  it('keeps options given in the URL, ahead of the settings', () => {
    expect(clientConfig('postgres://h/db?options=-c%20search_path%3Dx&work_mem=64MB').options).toBe('-c search_path=x -c work_mem=64MB');
  });

  it('adds nothing to a plain URL', () => {
    const config = clientConfig('postgres://postgres@127.0.0.1:5432/test');
    expect(config.options).toBeUndefined();
    expect(config.connectionString).toBe('postgres://postgres@127.0.0.1:5432/test');
  });
});
