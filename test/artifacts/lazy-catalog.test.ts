/**
 * The catalog that opens in the background: calls before it opens answer
 * STORAGE_UNAVAILABLE at once (never wait, never crash), it keeps trying
 * until it opens, and then it is the catalog. Closed before it opened, it
 * tells whoever waits for it, so a shutdown never waits on it.
 */
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { lazyCatalog } from '../../src/artifacts/store/lazy-catalog.ts';
import { quietLogger } from '../../src/logger.ts';

describe('lazyCatalog', () => {
  it('answers STORAGE_UNAVAILABLE until the catalog opens, retrying by itself, then passes every call through', async () => {
    let attempts = 0;
    const real = { ping: async () => undefined, close: async () => undefined } as unknown as Catalog;
    const lazy = lazyCatalog(async () => {
      attempts++;
      if (attempts < 2) throw new Error('connection refused');
      return real;
    }, quietLogger);
    expect(lazy.open).toBe(false);
    await expect(lazy.catalog.ping()).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE', details: { retryable: true } });
    await lazy.opened;
    expect(attempts).toBe(2);
    expect(lazy.open).toBe(true);
    await expect(lazy.catalog.ping()).resolves.toBeUndefined();
    // Not a thenable: an async function may hand it on.
    expect(await (async () => lazy.catalog)()).toBe(lazy.catalog);
    await lazy.close();
  }, 20_000);

  it('rejects whoever waits for it to open once it is closed, and a close nobody waits on is no unhandled rejection', async () => {
    const neverOpens = async (): Promise<Catalog> => {
      throw new Error('connection refused');
    };
    const awaited = lazyCatalog(neverOpens, quietLogger);
    const waiting = awaited.opened;
    await awaited.close();
    await expect(waiting).rejects.toThrow('closed before it opened');

    // Nobody ever awaits `opened` here (start-up had not reached it): the test run fails on an unhandled rejection.
    const unawaited = lazyCatalog(neverOpens, quietLogger);
    await unawaited.close();
  });
});
