/**
 * Parts in a local directory (under the data dir, or where a file:// URL
 * points): `<root>/objects/<location>/<name>`, each upload a directory of
 * its own. A part is linked (or copied) into place from the export's staged
 * file after its hash and size are checked, by rename, so a crash never
 * leaves half a part under its name (place-file.ts). A part is hashed again
 * the first time this process hands it out (then only its size and
 * modification time are compared), so a damaged or hand-edited file is
 * reported as ARTIFACT_CORRUPT instead of being read as data. This module's
 * job is the local disk.
 */
import { access, constants, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ByteStore, PartLease, PartRef } from './byte-store.ts';
import { verifyFile, corrupt } from './content-check.ts';
import { listLocalLocations } from './local-locations.ts';
import { listLocalParts, openLocalPart } from './part-listing.ts';
import { OBJECTS_DIR, checkLocation, newLocation, partKey, partNotFound, presignUnsupported } from './part-address.ts';
import { placeChecked, type LinkFile } from './place-file.ts';
import { sweepTemporaries } from './temporaries.ts';
import { guarded } from './storage-errors.ts';

export interface LocalBytesOptions {
  /** The store's directory (from SLUICE_ARTIFACT_URL, or `<data dir>/artifacts`). */
  root: string;
  /** How a staged file is linked into place; a test passes one that fails as a link to another disk does. */
  link?: LinkFile;
}

async function sizeOf(path: string): Promise<{ size: number; mtimeMs: number } | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function createLocalBytes({ root, link }: LocalBytesOptions): ByteStore {
  const objectsDir = join(root, OBJECTS_DIR);
  const tmpDir = join(root, `${OBJECTS_DIR}-tmp`);
  // What was hashed in this process, by part key, as "size:mtime": a change to either means hash again.
  const verified = new Map<string, string>();
  const verifying = new Map<string, Promise<void>>();
  let swept = false;

  async function verifyOnce(part: PartRef, key: string, path: string): Promise<void> {
    const info = await sizeOf(path);
    if (info === undefined) throw partNotFound();
    if (info.size !== part.bytes) throw corrupt(part.sha256, 'SIZE_MISMATCH');
    const stamp = `${info.size}:${info.mtimeMs}`;
    if (verified.get(key) === stamp) return;
    let running = verifying.get(key);
    if (running === undefined) {
      running = verifyFile(path, part.sha256, part.bytes).finally(() => verifying.delete(key));
      verifying.set(key, running);
    }
    await running;
    verified.set(key, stamp);
  }

  return {
    capabilities: { presign: false },

    newLocation,

    putPart: (part, localFile) =>
      guarded(async () => {
        const key = partKey(part);
        const target = join(objectsDir, key);
        if (!swept) {
          swept = true;
          // Leftovers of a crash mid-copy, once per process; old ones only, as another writer may share the directory.
          await sweepTemporaries(tmpDir);
        }
        await mkdir(tmpDir, { recursive: true });
        await placeChecked({ source: localFile, target, tmpDir, sha256: part.sha256, bytes: part.bytes, link });
        verified.delete(key);
      }),

    localPath: (part) =>
      guarded(async (): Promise<PartLease> => {
        const key = partKey(part);
        const path = join(objectsDir, key);
        await verifyOnce(part, key, path);
        // The file is the stored part itself: nothing to hold, so release has nothing to do.
        return { path, release: () => undefined };
      }),

    deleteLocation: (location) =>
      guarded(async () => {
        await rm(join(objectsDir, checkLocation(location)), { recursive: true, force: true });
        for (const key of verified.keys()) if (key.startsWith(`${location}/`)) verified.delete(key);
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

    close: () => undefined,
  };
}
