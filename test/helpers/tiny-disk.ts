/**
 * A tiny tmpfs mounted over a directory, so a test can fill a disk without
 * filling the machine's. Mounting needs root (CI runs as root); elsewhere
 * TINY_DISK_SKIP_REASON says why the tests that need one were not run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Mounts a tmpfs with these mount options (`size=256k`, `nr_inodes=1`) over `dir`; returns the unmount. */
export function mountTinyDisk(dir: string, options: string): () => void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
  return () => execFileSync('umount', [dir], { stdio: 'ignore' });
}

function whyNoTinyDisk(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-tinyfs-probe-'));
  try {
    mountTinyDisk(dir, 'size=64k')();
    return null;
  } catch {
    return 'mounting a small tmpfs needs root (CI runs as root)';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Null when a tiny disk can be mounted here. */
export const TINY_DISK_SKIP_REASON = whyNoTinyDisk();
