/**
 * Frees the native memory of spent DuckDB result chunks. A chunk's vectors
 * live outside the JavaScript heap and are freed only when the garbage
 * collector finalizes the chunk object, but the collector does not see
 * their size: an export that allocates little JavaScript memory held every
 * chunk of the stream until a collection happened to run (measured on 1M
 * rows × 6 columns: peak RSS 288 MB against 230 MB for 250k rows; 245 MB
 * when collecting once per part). Called once per part.
 *
 * A young-generation collection is enough: the spent chunks' wrappers are
 * young (the stream allocates too little for one to have run since they
 * were made), and their finalizers run after it as after a full one. It
 * keeps the same peak (222-228 MB for 1M rows against 222-226 MB) and
 * blocks the thread that appends the next part's rows for a few
 * milliseconds instead of 20-120 (bench/runs/2026-12-01-folder-speed.md).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options?: { type: 'minor' | 'major' }) => void;

let collect: Collect | null | undefined;

/** Runs a young-generation garbage collection of this thread's heap; nothing where the runtime does not allow it. */
export function releaseSpentChunks(): void {
  if (collect === undefined) {
    try {
      // The documented way to reach the collector without starting the process with --expose-gc.
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as Collect;
    } catch {
      collect = null;
    }
  }
  collect?.({ type: 'minor' });
}
