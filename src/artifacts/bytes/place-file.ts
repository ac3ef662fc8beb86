/**
 * Putting a finished local file under its final name in a directory store,
 * checked against its SHA-256 and size first (a file this process hashed
 * itself, linked and still showing the stamp it had then, is checked by that
 * hash; the export hashes every part it writes). The staged file is usually on
 * the same disk, so it is hard-linked (no copy of a large part, no second
 * disk's worth of space); where links are refused (another disk, a file
 * system without them) it is copied through the check instead. Either way
 * the bytes are flushed under a temporary name and renamed into place, so a
 * crash leaves a whole part or none under the final name, never half of
 * one. It answers with the size and modification time the checked bytes
 * had, so the store can trust that check until they change
 * (part-verifier.ts). This module's job is the local disk.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link as fsLink, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sameStamp, type FileStamp } from '../../runtime/digest-file.ts';
import { PART_READ_BYTES, verifyFile, writeChecked } from './content-check.ts';

export type LinkFile = (existing: string, newPath: string) => Promise<void>;

/** Link failures that mean "not here" (another disk, no links on this file system, too many links), not a broken disk. */
const LINK_REFUSED = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

export interface Placement {
  source: string;
  target: string;
  /** A directory on the target's file system, so the rename is atomic. */
  tmpDir: string;
  sha256: string;
  bytes: number;
  link?: LinkFile | undefined;
  /** The source's stamp when this process hashed it as `sha256`: a link that still shows it is not hashed again. */
  hashedAt?: FileStamp | undefined;
}

async function linked(link: LinkFile, source: string, temporary: string): Promise<boolean> {
  try {
    await link(source, temporary);
    return true;
  } catch (error) {
    if (LINK_REFUSED.has((error as { code?: string }).code ?? '')) return false;
    throw error;
  }
}

/** fsync: a link adopts whatever the exporter wrote, which may still be only in the page cache. */
async function sync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export type { FileStamp } from '../../runtime/digest-file.ts';

/** Resolves with the stamp of the bytes it checked: taken before a linked file was hashed, after a copy was written. */
export async function placeChecked({ source, target, tmpDir, sha256, bytes, link = fsLink, hashedAt }: Placement): Promise<FileStamp> {
  const temporary = join(tmpDir, `${sha256}.${randomUUID()}`);
  let checked: FileStamp;
  try {
    if (await linked(link, source, temporary)) {
      // Before the hash: bytes changed while they were hashed then show another stamp.
      checked = await stat(temporary);
      // The same file the export hashed, unchanged since (its stamp says so): that hash is the check, as the
      // verifier trusts its own. Measured: that second pass over every part was about 3 % of a folder export's CPU.
      if (!(sameStamp(checked, hashedAt) && checked.size === bytes)) await verifyFile(temporary, sha256, bytes);
      await sync(temporary);
    } else {
      await writeChecked(createReadStream(source, { highWaterMark: PART_READ_BYTES }), temporary, sha256, bytes);
      checked = await stat(temporary);
    }
    // Only now: a put refused by its check leaves no trace of its upload, not even an empty directory.
    await mkdir(dirname(target), { recursive: true });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  // The catalog records the part right after this resolves, so the rename itself must survive a
  // power cut; best effort, as some platforms cannot open a directory to flush it.
  await sync(dirname(target)).catch(() => undefined);
  // The rename moved the file, not its bytes: size and time are those checked.
  return { size: checked.size, mtimeMs: checked.mtimeMs };
}
