/** The cache of recent answers on its own: bounded, least recently used out first, one load per key at a time. */
import { describe, expect, it } from 'vitest';
import { PageCache } from '../../../src/artifacts/store/page-cache.ts';
import { textBytes } from '../../../src/artifacts/store/page-reads.ts';

const answer = (value: string, bytes = 1000) => async () => ({ value, bytes });

describe('PageCache', () => {
  it('answers a key it holds without loading it again', async () => {
    const cache = new PageCache<string>(1024 * 1024);
    let loads = 0;
    const load = async () => ({ value: `v${++loads}`, bytes: 10 });
    expect(await cache.get('k', load)).toBe('v1');
    expect(await cache.get('k', load)).toBe('v1');
    expect(loads).toBe(1);
  });

  it('stays within its bound, dropping the least recently used first', async () => {
    const cache = new PageCache<string>(64 * 1024);
    await cache.get('a', answer('a'));
    for (let i = 0; i < 500; i++) {
      await cache.get(`k${i}`, answer(`k${i}`));
      await cache.get('a', answer('reloaded'));
      expect(cache.bytes).toBeLessThanOrEqual(64 * 1024);
    }
    expect(cache.size).toBeGreaterThan(10);
    expect(cache.size).toBeLessThan(100);
    // Used after every insert, 'a' was never the oldest; k0 was long gone.
    expect(await cache.get('a', answer('reloaded'))).toBe('a');
    expect(await cache.get('k0', answer('reloaded'))).toBe('reloaded');
  });

  it('does not keep an answer larger than an eighth of its bound', async () => {
    const cache = new PageCache<string>(80_000);
    await cache.get('big', answer('big', 20_000));
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
  });

  it('shares one load among concurrent requests for a key, and keeps no failure', async () => {
    const cache = new PageCache<string>(1024 * 1024);
    let loads = 0;
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const slow = async () => {
      loads++;
      await gate;
      return { value: 'shared', bytes: 10 };
    };
    const all = Promise.all([cache.get('k', slow), cache.get('k', slow), cache.get('k', slow)]);
    finish();
    expect(await all).toEqual(['shared', 'shared', 'shared']);
    expect(loads).toBe(1);

    await expect(cache.get('bad', async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await cache.get('bad', answer('good'))).toBe('good');
  });
});

describe('the size a page is counted at', () => {
  it('counts the text of the rows it holds, not only how many rows there are', () => {
    const long = 'x'.repeat(10_000);
    // A text[] of ten long strings, and a json value holding one.
    expect(textBytes([JSON.stringify([[...Array(10)].map(() => long)])])).toBeGreaterThanOrEqual(200_000);
    expect(textBytes([JSON.stringify([{ note: long }])])).toBeGreaterThanOrEqual(20_000);
    expect(textBytes([JSON.stringify(['abc', '12.50', null])])).toBeLessThan(200);
  });
});
