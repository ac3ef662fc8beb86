/**
 * Gives the heaps of worker threads started from now on an initial old
 * generation of WORKER_OLD_SPACE_MB. V8 sizes the old generation's limit
 * from what the JavaScript heap holds, and a read worker holds little
 * JavaScript (about 8 MB) while it copies each window it reads out of
 * DuckDB into ArrayBuffers (about 2.4 MB for 30,720 rows of seven columns;
 * worker/column-window.ts). V8 started a full collection at that limit
 * every few windows, with 8 MB of a 23 MB limit in use by the JavaScript
 * heap (the buffers made since the last one count too), and each freed
 * almost nothing: 39 a worker while 9,995 distinct pages were served, 27%
 * of the workers' busy time and much of V8's helper threads'. Started
 * with room for a window bound's worth of buffers, a worker ran 17
 * (bench/runs/2026-12-06-worker-heaps.md).
 *
 * The flag is V8's, for the whole process, and is read when an isolate is
 * made: the API thread's heap, made before, keeps its own sizing. Worker
 * options set only maximums, hence the flag. A runtime whose node:v8 does
 * not take V8 flags keeps its default.
 */
import { setFlagsFromString } from 'node:v8';

/** The initial old generation of each worker thread's heap, in MB: a read worker's default bound on windows (window-bound.ts). */
export const WORKER_OLD_SPACE_MB = 64;

let applied = false;

/** Applies WORKER_OLD_SPACE_MB to the worker threads started after this call; once per process. */
export function roomForWorkerBuffers(): void {
  if (applied) return;
  applied = true;
  try {
    setFlagsFromString(`--initial-old-space-size=${WORKER_OLD_SPACE_MB}`);
  } catch {
    // A runtime without V8 flags: its workers keep the default.
  }
}
