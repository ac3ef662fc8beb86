/**
 * Parts in a local directory (under the data dir, or where a file:// URL
 * points): `<root>/objects/<location>/<name>`, each upload a directory of
 * its own. A part is linked (or copied) into place from the export's staged
 * file after its hash and size are checked, by rename, so a crash never
 * leaves half a part under its name (place-file.ts). A part is hashed
 * once in each process (the put's own check counts), before it is first
 * handed out or, for a lease asked for with checkBeside, while its reader
 * reads it (then only its size and modification time are compared), so a
 * damaged or hand-edited file is reported as ARTIFACT_CORRUPT instead of
 * being read as data; after start a
 * pass hashes every part in the background, most recently read first, so a
 * read rarely waits for it (part-verifier.ts). This module's job is the
 * local disk.
 */
import { access, constants, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ByteStore, PartLease, PartRef } from './byte-store.ts';
import { listLocalLocations } from './local-locations.ts';
import { listLocalParts, openLocalPart } from './part-listing.ts';
import { OBJECTS_DIR, checkLocation, newLocation, partKey, presignUnsupported } from './part-address.ts';
import { PartVerifier } from './part-verifier.ts';
import { placeChecked, type LinkFile } from './place-file.ts';
import { sweepTemporaries } from './temporaries.ts';
import { guarded } from './storage-errors.ts';

export interface LocalBytesOptions {
  /** The store's directory (from SLUICE_ARTIFACT_URL, or `<data dir>/artifacts`). */
  root: string;
  /** How a staged file is linked into place; a test passes one that fails as a link to another disk does. */
  link?: LinkFile;
}

export function createLocalBytes({ root, link }: LocalBytesOptions): ByteStore {
  const objectsDir = join(root, OBJECTS_DIR);
  const tmpDir = join(root, `${OBJECTS_DIR}-tmp`);
  const verifier = new PartVerifier(root, objectsDir);
  let swept = false;

  return {
    capabilities: { presign: false },

    newLocation,

    putPart: (part, localFile, options) =>
      guarded(async () => {
        const key = partKey(part);
        const target = join(objectsDir, key);
        if (!swept) {
          swept = true;
          // Leftovers of a crash mid-copy, once per process; old ones only, as another writer may share the directory.
          await sweepTemporaries(tmpDir);
        }
        await mkdir(tmpDir, { recursive: true });
        const stamp = await placeChecked({ source: localFile, target, tmpDir, sha256: part.sha256, bytes: part.bytes, link, hashedAt: options?.hashedAt });
        verifier.checked(key, stamp, part.sha256, part.bytes);
      }),

    localPath: (part, options) =>
      guarded(async (): Promise<PartLease> => {
        const key = partKey(part);
        const path = join(objectsDir, key);
        const checking = verifier.verify(key, part.location, path, part.sha256, part.bytes);
        // The file is the stored part itself: nothing to hold, so release has nothing to do.
        if (options?.checkBeside !== true) {
          await checking;
          return { path, release: () => undefined };
        }
        const checked = guarded(() => checking);
        // Handled by whoever awaits it; a caller that fails before then must not leave it unhandled.
        checked.catch(() => undefined);
        return { path, checked, release: () => undefined };
      }),

    deleteLocation: (location) =>
      guarded(async () => {
        await rm(join(objectsDir, checkLocation(location)), { recursive: true, force: true });
        verifier.forget((key) => key.startsWith(`${location}/`));
      }),

    listParts: (location) => guarded(() => listLocalParts(join(objectsDir, checkLocation(location)))),

    openPart: (part) => guarded(() => openLocalPart(join(objectsDir, partKey(part)))),

    listLocations: (page) => guarded(() => listLocalLocations(objectsDir, page)),

    presignGet: async (part) => {
      partKey(part);
      throw presignUnsupported();
    },

    probe: () =>
      guarded(async () => {
        await mkdir(objectsDir, { recursive: true });
        await access(objectsDir, constants.W_OK);
      }),

    verifyStored: () => void verifier.start(),

    close: () => verifier.stop(),
  };
}
