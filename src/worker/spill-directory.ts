/**
 * Where a query worker's DuckDB writes what outgrows its memory limit (a
 * large sort, join or aggregate over an artifact): a directory of its own
 * under the data directory's `spill` folder. Left unset, DuckDB spills into
 * `.tmp` of the process's working directory, which may be read-only (the
 * read then fails) or the checkout the server runs from.
 *
 * Each DuckDB instance gets its own directory, named after the process, so
 * two never share files, and the leftovers of a process that crashed can be
 * told from those of a live one. DuckDB removes its files when it closes.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** The spill folder under a data directory. */
export function spillRoot(dataDir: string): string {
  return join(dataDir, 'spill');
}

/** The directory of one DuckDB instance of this process: `<pid>-<thread>-<name>`. */
export function instanceSpillDir(root: string, threadId: number, name: string): string {
  return join(root, `${process.pid}-${threadId}-${name}`);
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

/** Removes what processes no longer running left in the spill folder; returns how many directories went. */
export async function sweepSpills(root: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    await rm(join(root, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
