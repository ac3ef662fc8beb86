/**
 * What a store check needs of a directory store beyond the bytes contract's
 * reads: the files one upload directory holds now, and a part's bytes as
 * stored, unchecked (the check hashes them itself). This module's job is
 * the local disk.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredPart } from './byte-store.ts';
import { PART_READ_BYTES } from './content-check.ts';
import { partNotFound } from './part-address.ts';

export async function listLocalParts(dir: string): Promise<StoredPart[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
  const parts: StoredPart[] = [];
  for (const name of names.sort()) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isFile() === true) parts.push({ name, bytes: info.size });
  }
  return parts;
}

/** Opens the file before answering, so a missing part is NOT_FOUND here and not an error mid-stream. */
export async function openLocalPart(path: string): Promise<AsyncIterable<Uint8Array>> {
  const info = await stat(path).catch((error: { code?: string }) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (info === undefined || !info.isFile()) throw partNotFound();
  return createReadStream(path, { highWaterMark: PART_READ_BYTES });
}
