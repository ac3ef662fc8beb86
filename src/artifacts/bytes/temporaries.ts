/**
 * Removal of temporary files a crash left behind while a part was being
 * written. They are never visible under a part's name (parts appear by
 * rename), so this is only about disk space, and it never fails its caller.
 * This module's job is the local disk.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** An hour is far longer than any one part takes to write, so a file that old has no writer left. */
export const ABANDONED_AFTER_MS = 3600_000;

/** Removes files in `dir` last written more than `olderThanMs` ago; returns how many went. */
export async function sweepTemporaries(dir: string, olderThanMs = ABANDONED_AFTER_MS, now = Date.now()): Promise<number> {
  let removed = 0;
  try {
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info !== undefined && now - info.mtimeMs >= olderThanMs) {
        await rm(path, { recursive: true, force: true });
        removed += 1;
      }
    }
  } catch {
    // A missing directory has nothing to sweep; any other failure is retried by the next sweep.
  }
  return removed;
}
