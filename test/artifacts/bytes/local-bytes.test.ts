/**
 * The local directory store: the contract suite, and what only a directory
 * can show: a staged file is linked into place (copied where a link is
 * refused), a failed or interrupted write leaves nothing under a part's
 * name, hostile references touch nothing outside the root, an upload's age
 * is its directory's, and temporary files a crash left are swept once old.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalBytes } from '../../../src/artifacts/bytes/local-bytes.ts';
import { testByteStore } from './byte-store-contract.ts';
import { blobHashOf, crossDevice, failure, filesUnder, makePart, partRef, storedFile, tempDirs, upload } from './part-fixtures.ts';

const freshRoot = tempDirs('sluice-local-bytes-');

testByteStore('local directory', { remote: false, presign: false, outage: false }, async () => {
  const root = freshRoot();
  return {
    store: createLocalBytes({ root }),
    // The layout is the store's own business; this test reaches behind it on purpose.
    tamper: async (ref, content) => writeFileSync(storedFile(root, ref), content),
    close: async () => undefined,
  };
});

testByteStore('local directory on another disk', { remote: false, presign: false, outage: false }, async () => {
  const root = freshRoot();
  return {
    store: createLocalBytes({ root, link: crossDevice }),
    tamper: async (ref, content) => writeFileSync(storedFile(root, ref), content),
    close: async () => undefined,
  };
});

describe('local directory store on disk', () => {
  it('links a staged file into place on the same disk, and copies it where a link is refused', async () => {
    const staging = freshRoot();
    const part = makePart(staging, 50_000);
    const root = freshRoot();
    const [linked] = await upload(createLocalBytes({ root }), [part]);
    expect(statSync(storedFile(root, linked!)).ino).toBe(statSync(part.path).ino);
    const [copied] = await upload(createLocalBytes({ root, link: crossDevice }), [part]);
    expect(statSync(storedFile(root, copied!)).ino).not.toBe(statSync(part.path).ino);
    expect(readFileSync(storedFile(root, copied!)).equals(part.content)).toBe(true);
  });

  it.each([
    ['linked', undefined],
    ['copied', crossDevice],
  ])('leaves nothing under the root, nor a temporary file, when a %s put fails its check', async (_how, link) => {
    const root = freshRoot();
    const store = createLocalBytes({ root, ...(link === undefined ? {} : { link }) });
    const part = makePart(freshRoot(), 300_000);
    // The file holds fewer bytes than claimed, as if its writer had died: the check stops it.
    writeFileSync(part.path, part.content.subarray(0, 100_000));
    const ref = partRef(store.newLocation(), part);
    expect((await failure(store.putPart(ref, part.path))).code).toBe('ARTIFACT_CORRUPT');
    expect(filesUnder(root)).toEqual([]);
    expect(existsSync(storedFile(root, ref))).toBe(false);
  });

  it('touches nothing outside its root, whatever it is asked', async () => {
    const base = freshRoot();
    const root = join(base, 'store');
    const store = createLocalBytes({ root });
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'outside', 'part-00000.parquet'), 'keep me');
    const part = makePart(freshRoot(), 100);
    const hash = blobHashOf([part]);
    for (const location of ['../../outside', `${hash.slice(0, 2)}/../../../outside`, join(base, 'outside')]) {
      expect((await failure(store.deleteLocation(location))).code).toBe('VALIDATION_ERROR');
      expect((await failure(store.putPart({ ...partRef(location, part) }, part.path))).code).toBe('VALIDATION_ERROR');
    }
    const good = partRef(store.newLocation(), part);
    expect((await failure(store.putPart({ ...good, name: '../../../../outside/part-00000.parquet' }, part.path))).code).toBe('VALIDATION_ERROR');
    expect(readdirSync(base).sort()).toEqual(['outside']);
    expect(readFileSync(join(base, 'outside', 'part-00000.parquet'), 'utf8')).toBe('keep me');
  });

  it('dates an upload by its newest change: an old one stays old, a fresh one of long-staged files is young', async () => {
    const root = freshRoot();
    const store = createLocalBytes({ root });
    // Whole seconds, so the time read back is the time set.
    const hoursAgo = (hours: number) => new Date(Math.floor((Date.now() - hours * 3600_000) / 1000) * 1000);
    const [old] = await upload(store, [makePart(freshRoot(), 100)]);
    const fiveHoursAgo = hoursAgo(5);
    for (const path of [storedFile(root, old!), join(root, 'objects', old!.location)]) utimesSync(path, fiveHoursAgo, fiveHoursAgo);
    // An export that staged its part two hours ago: the linked file keeps that time, the upload is still new.
    const staged = makePart(freshRoot(), 100);
    utimesSync(staged.path, hoursAgo(2), hoursAgo(2));
    const [fresh] = await upload(store, [staged]);
    const listed = new Map((await store.listLocations({ limit: 10 })).locations.map((entry) => [entry.location, entry.modifiedAt.getTime()]));
    expect(listed.get(old!.location)).toBe(fiveHoursAgo.getTime());
    expect(listed.get(fresh!.location)).toBeGreaterThan(hoursAgo(1).getTime());
  });

  it('sweeps temporary files older than an hour on its first put, and keeps younger ones', async () => {
    const root = freshRoot();
    const tmp = join(root, 'objects-tmp');
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'abandoned'), 'x');
    writeFileSync(join(tmp, 'in-progress'), 'y');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(join(tmp, 'abandoned'), twoHoursAgo, twoHoursAgo);
    await upload(createLocalBytes({ root }), [makePart(freshRoot(), 10)]);
    expect(filesUnder(tmp).map((f) => f.name)).toEqual(['in-progress']);
  });

  it('reports a directory it cannot create as storage unavailable, not retryable, without its path', async () => {
    const blocker = join(freshRoot(), 'a-file');
    writeFileSync(blocker, '');
    // A root below a regular file can never be created: the disk, not the caller, is at fault.
    const error = await failure(createLocalBytes({ root: join(blocker, 'store') }).probe());
    expect([error.code, error.details]).toEqual(['STORAGE_UNAVAILABLE', { retryable: false, reason: 'ENOTDIR' }]);
    expect(error.message).not.toContain(blocker);
  });
});
