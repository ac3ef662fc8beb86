/**
 * Where a query worker's DuckDB writes what outgrows its memory limit (a
 * large sort, join or aggregate over an artifact): a directory of its own
 * under the data directory's `spill` folder. Left unset, DuckDB spills into
 * `.tmp` of the process's working directory, which may be read-only (the
 * read then fails) or the checkout the server runs from.
 *
 * Each process has a folder of its own there (its pid and a random name,
 * since a process started again in a container often gets the same pid),
 * and each DuckDB instance a directory of its own in it, so two never share
 * files. DuckDB removes its files when it closes; what a process that ended
 * without closing left is removed when the next one starts.
 */
import { randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** The spill folder under a data directory, which holds one folder per process. */
export function spillRoot(dataDir: string): string {
  return join(dataDir, 'spill');
}

/** A folder for this process's spills under `root`: `<pid>-<random>`, a new one each time it is asked for. */
export function processSpillDir(root: string): string {
  return join(root, `${process.pid}-${randomUUID().slice(0, 8)}`);
}

/** The directory of one DuckDB instance: `<thread>-<name>` in its process's folder. */
export function instanceSpillDir(processDir: string, threadId: number, name: string): string {
  return join(processDir, `${threadId}-${name}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Removes the folders of processes no longer running from the spill folder, all but `own`: one
 * with this process's pid is an earlier process's that had it. Returns how many went.
 */
export async function sweepSpills(root: string, own: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (name === basename(own) || !Number.isInteger(pid) || (pid !== process.pid && alive(pid))) continue;
    await rm(join(root, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
