/**
 * A copy of a worker entry in a folder of its own, which a test removes to
 * make every worker started after that fail to load, as a worker whose files
 * were replaced or deleted under a running server would.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface RemovableWorkerEntry {
  url: URL;
  /** From now on, a worker started from `url` dies while loading. */
  remove(): void;
  /** Puts the entry back, so workers load again. */
  restore(): void;
  /** Removes the folder (after the test). */
  dispose(): void;
}

export function removableWorkerEntry(fixture: URL): RemovableWorkerEntry {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-worker-entry-'));
  const source = fileURLToPath(fixture);
  const file = join(dir, basename(source));
  const restore = () => copyFileSync(source, file);
  restore();
  return {
    url: pathToFileURL(file),
    remove: () => rmSync(file, { force: true }),
    restore,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
