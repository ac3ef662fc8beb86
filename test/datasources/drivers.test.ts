/**
 * The datasource kinds by URL scheme, and what the registry takes from a
 * driver: its dialect (also for a datasource still starting) and its
 * declared concurrency. No connection is made: drivers open lazily.
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principals.ts';
import { driverLoaded, kindOf } from '../../src/datasources/drivers.ts';
import { DatasourceRegistry } from '../../src/datasources/registry.ts';
import { SluiceError } from '../../src/errors.ts';
import { quietLogger } from '../../src/logger.ts';

const ADMIN: Principal = { id: 'admin', role: 'admin', roles: ['admin'], datasources: ['*'], auth: 'token' };

function errorOf(fn: () => unknown): SluiceError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    return error as SluiceError;
  }
  throw new Error('expected an error');
}

async function rejectionOf(promise: Promise<unknown>): Promise<SluiceError> {
  const error = await promise.then(
    () => new Error('expected an error'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SluiceError);
  return error as SluiceError;
}

describe('datasource kinds', () => {
  it('names PostgreSQL by either of its schemes', () => {
    expect(kindOf('postgres://u@127.0.0.1:5432/db')).toBe('postgres');
    expect(kindOf('postgresql://u@127.0.0.1/db?sslmode=disable')).toBe('postgres');
  });

  it('refuses a scheme no driver speaks, or no URL at all, saying which schemes there are and nothing of the URL', () => {
    const unknown = errorOf(() => kindOf('oracle://scott:tiger@db.example/orcl'));
    expect(unknown.code).toBe('VALIDATION_ERROR');
    expect(unknown.message).toContain('"oracle://"');
    expect(unknown.message).toContain('postgres://');
    expect(unknown.message).not.toContain('tiger');
    expect(errorOf(() => kindOf('not a url')).code).toBe('VALIDATION_ERROR');
  });

  it('stops the registry on a datasource of no known kind, naming the variable and the datasource', async () => {
    const error = await rejectionOf(DatasourceRegistry.open([{ id: 'warehouse', url: 'oracle://db.example/orcl' }], 2, quietLogger));
    expect(error.message).toMatch(/^SLUICE_DATASOURCES: datasource "warehouse": /);
    const fromUrl = await rejectionOf(DatasourceRegistry.open([{ id: 'default', url: 'oracle://db.example/orcl', setting: 'DATABASE_URL' }], 2, quietLogger));
    expect(fromUrl.message).toMatch(/^DATABASE_URL: datasource "default": /);
  });

  it('takes a named kind when the URL is one of its schemes, and refuses one that is not', async () => {
    expect(kindOf('postgresql://u@127.0.0.1/db', 'postgres')).toBe('postgres');
    const wrong = await rejectionOf(DatasourceRegistry.open([{ id: 'shop', kind: 'postgres', url: 'oracle://u:secret@db.example/orcl' }], 2, quietLogger));
    expect(wrong.message).toMatch(/^SLUICE_DATASOURCES: datasource "shop": kind "postgres" reads URLs starting with postgres:\/\/ or postgresql:\/\/, not "oracle:\/\/"/);
    expect(wrong.message).not.toContain('secret');
  });
});

describe('the registry and its drivers', () => {
  it('loads the driver of each kind configured and of no other (their parsers and clients are tens of MB)', async () => {
    const registry = await DatasourceRegistry.open([{ id: 'shop', url: 'postgres://u@127.0.0.1:1/db' }], 2, quietLogger);
    try {
      expect(driverLoaded('postgres')).toBe(true);
      expect(driverLoaded('mysql')).toBe(false);
      expect(driverLoaded('sqlite')).toBe(false);
      expect(driverLoaded('files')).toBe(false);
      // A datasource added once it has started loads its kind then.
      await registry.add({ id: 'lite', url: 'sqlite:///nowhere/at/all.db' });
      expect(driverLoaded('sqlite')).toBe(true);
      expect(registry.get(ADMIN, 'lite').driver.dialect.name).toBe('sqlite');
      expect(driverLoaded('mysql')).toBe(false);
    } finally {
      await registry.close();
    }
  });

  it('answers a dialect for a datasource started or still starting, and NOT_FOUND for none', async () => {
    const registry = await DatasourceRegistry.open([{ id: 'shop', url: 'postgres://u@127.0.0.1:1/db' }], 2, quietLogger);
    registry.markStarting('default', 'postgres');
    try {
      expect(registry.dialectOf('shop').label).toBe('PostgreSQL');
      expect(registry.dialectOf('default').quoteIdentifier('a"b')).toBe('"a""b"');
      expect(errorOf(() => registry.dialectOf('nope')).code).toBe('NOT_FOUND');
      expect(registry.get(ADMIN, 'shop').kind).toBe('postgres');
    } finally {
      await registry.close();
    }
  });

  it('takes each datasource\u2019s capabilities from its driver: the embedded database declares no cancel and one statement at a time', async () => {
    const registry = await DatasourceRegistry.open(
      [
        { id: 'server', url: 'postgres://u@127.0.0.1:1/db' },
        { id: 'embedded', url: 'postgres://u@127.0.0.1:2/db', embedded: true },
      ],
      2,
      quietLogger,
    );
    try {
      expect(registry.get(ADMIN, 'server').driver.capabilities).toEqual({ cancel: true, engineReadOnly: true, concurrentStatements: true });
      expect(registry.get(ADMIN, 'embedded').driver.capabilities).toEqual({ cancel: false, engineReadOnly: true, concurrentStatements: false });
      // One statement at a time: a second turn waits for the first.
      const limiter = registry.get(ADMIN, 'embedded').limiter;
      const first = await limiter.acquire();
      let second = false;
      const waiting = limiter.acquire().then((release) => {
        second = true;
        release();
      });
      await new Promise((r) => setTimeout(r, 20));
      expect(second).toBe(false);
      first();
      await waiting;
      expect(second).toBe(true);
    } finally {
      await registry.close();
    }
  });
});
