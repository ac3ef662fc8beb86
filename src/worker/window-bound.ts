/**
 * How many bytes of windows each read worker keeps (row-windows.ts): a
 * sixteenth of the memory the process may use, shared by the read workers,
 * and no less than WINDOW_BYTES nor more than MAX_WINDOW_BYTES each. A
 * window no worker keeps any more costs its whole row group's decode again
 * for its next page; readers who come back to windows read a while ago
 * (many results read at once, or one read out of order) paid that for
 * every window once the windows they cycle through outgrew the bound:
 * 9,995 distinct pages over five 2M-row results read each window about
 * twice at 64 MB a worker, and ran 19-28% faster when each was read once
 * (bench/runs/2026-12-06-window-rereads.md). Like a database's buffer
 * pool, the bound follows the machine: the memory a container's limit
 * allows where it is set, else the machine's.
 */
import { totalmem } from 'node:os';
import process from 'node:process';

/**
 * Bound on the bytes of the windows one worker keeps, unless it is given another; the bound on its
 * tables whatever it is given, and four times what one window may take.
 */
export const WINDOW_BYTES = 64 * 1024 * 1024;

/** The most one worker's windows take, however large the machine. */
export const MAX_WINDOW_BYTES = 1024 * 1024 * 1024;

/** The share of the process's memory all read workers' windows take together. */
const MEMORY_SHARE = 1 / 16;

/** The memory the process may use: its cgroup's limit when one is set below the machine's memory, else the machine's. */
export function processMemoryBytes(): number {
  const machine = totalmem();
  // Node 19.6+; undefined elsewhere, and 0 (or a huge number) where no limit is set.
  const limit = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  return limit !== undefined && limit > 0 && limit < machine ? limit : machine;
}

/** The bound on each of `readWorkers` workers' windows, for a process that may use `memoryBytes`. */
export function windowBoundFor(readWorkers: number, memoryBytes = processMemoryBytes()): number {
  const share = Math.floor((memoryBytes * MEMORY_SHARE) / Math.max(1, readWorkers));
  return Math.min(MAX_WINDOW_BYTES, Math.max(WINDOW_BYTES, share));
}
