/**
 * Parts in a local directory (under the data dir, or where a file:// URL
 * points): `<root>/parts/ab/<sha256>.parquet`. A part is written to a
 * temporary file beside the tree, checked against its address as it is
 * copied, flushed, then renamed into place, so a crash leaves at most an
 * invisible temporary file, never a half part under its address. A part is
 * hashed again the first time this process hands it out (then only its size
 * and modification time are compared), so a damaged or hand-edited file is
 * reported as ARTIFACT_CORRUPT instead of being read as data. This module's
 * job is the local disk.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ByteStore, PartLease, PartPage } from './byte-store.ts';
import { writeChecked, verifyFile, corrupt } from './content-check.ts';
import { PARTS_DIR, addressOf, checkAddress, checkLimit, checkSize, partName, partNotFound, presignUnsupported } from './part-address.ts';
import { sweepTemporaries } from './temporaries.ts';
import { guarded } from './storage-errors.ts';

export interface LocalBytesOptions {
  /** The store's directory (from SLUICE_ARTIFACT_URL, or `<data dir>/artifacts`). */
  root: string;
}

const TWO_HEX = /^[0-9a-f]{2}$/;

async function sizeOf(path: string): Promise<{ size: number; mtimeMs: number } | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function sortedNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw error;
  }
}

export function createLocalBytes({ root }: LocalBytesOptions): ByteStore {
  const partsDir = join(root, PARTS_DIR);
  const tmpDir = join(root, `${PARTS_DIR}-tmp`);
  const pathOf = (sha256: string) => join(partsDir, partName(sha256));
  // What was hashed in this process, as "size:mtime": a change to either means hash again.
  const verified = new Map<string, string>();
  const verifying = new Map<string, Promise<void>>();
  let swept = false;

  async function verifyOnce(sha256: string, path: string, bytes: number): Promise<void> {
    const info = await sizeOf(path);
    if (info === undefined) throw partNotFound();
    if (info.size !== bytes) throw corrupt(sha256, 'SIZE_MISMATCH');
    const stamp = `${info.size}:${info.mtimeMs}`;
    if (verified.get(sha256) === stamp) return;
    let running = verifying.get(sha256);
    if (running === undefined) {
      running = verifyFile(path, sha256, bytes).finally(() => verifying.delete(sha256));
      verifying.set(sha256, running);
    }
    await running;
    verified.set(sha256, stamp);
  }

  return {
    capabilities: { presign: false },

    putPart: (localFile, sha256, bytes) =>
      guarded(async () => {
        const target = pathOf(sha256);
        checkSize(bytes);
        if (!swept) {
          swept = true;
          // Leftovers of a crash mid-copy, once per process; old ones only, as another writer may share the directory.
          await sweepTemporaries(tmpDir);
        }
        if ((await sizeOf(target))?.size === bytes) return { written: false };
        await mkdir(tmpDir, { recursive: true });
        await mkdir(dirname(target), { recursive: true });
        const temporary = join(tmpDir, `${sha256}.${randomUUID()}`);
        await writeChecked(createReadStream(localFile), temporary, sha256, bytes);
        await rename(temporary, target);
        verified.delete(sha256);
        return { written: true };
      }),

    localPath: (sha256, bytes) =>
      guarded(async (): Promise<PartLease> => {
        const path = pathOf(sha256);
        await verifyOnce(sha256, path, checkSize(bytes));
        // The file is the stored part itself: nothing to hold, so release has nothing to do.
        return { path, release: () => undefined };
      }),

    deletePart: (sha256) =>
      guarded(async () => {
        await rm(pathOf(sha256), { force: true });
        verified.delete(sha256);
      }),

    listParts: ({ after, limit }) =>
      guarded(async (): Promise<PartPage> => {
        checkLimit(limit);
        const names: string[] = [];
        const from = after?.slice(0, 2) ?? '';
        // One fan-out directory at a time, stopping once the page is full: a page costs at most a few directory reads.
        for (const sub of await sortedNames(partsDir)) {
          if (!TWO_HEX.test(sub) || sub < from) continue;
          for (const file of await sortedNames(join(partsDir, sub))) {
            const name = `${sub}/${file}`;
            if ((after === undefined || name > after) && addressOf(name) !== undefined) names.push(name);
          }
          if (names.length > limit) break;
        }
        const page = names.slice(0, limit);
        const more = names.length > limit;
        return { parts: page.map((name) => addressOf(name) ?? ''), next: more ? (page.at(-1) ?? null) : null };
      }),

    presignGet: async (sha256) => {
      checkAddress(sha256);
      throw presignUnsupported();
    },

    probe: () =>
      guarded(async () => {
        await mkdir(partsDir, { recursive: true });
        await access(partsDir, constants.W_OK);
      }),

    close: () => undefined,
  };
}
