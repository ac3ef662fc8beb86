/**
 * Windows of stored rows a read worker keeps decoded, so that the pages of
 * a row group after the first cost a fraction of a millisecond instead of
 * the row group's decode each. A part's Parquet holds one data page per
 * column per row group, so any page of a row group costs DuckDB that whole
 * row group (bench/runs/2026-12-01-pages.md, attempt 4); streaming the row
 * group whole costs about two pages' worth, and every later page of it is
 * cut from memory and encoded in JavaScript (columns/value-json-js.ts). A
 * window is known by its part's content hash, so it can hold no other bytes
 * than the part's; the API thread sends the pages of one window to the same
 * worker (window-reads.ts).
 *
 * Bounded by the memory the windows take: 16 bytes a value as DuckDB holds
 * it, and the bytes of text, which the window's statement counts row by row.
 * A window past a quarter of the bound is not kept: only the chunks of the
 * rows asked for are held while it streams, and the caller is told, so it
 * reads that artifact's pages by statements instead.
 */
import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { valueEncoder, type ValueEncoder } from '../columns/value-json-js.ts';
import type { WindowResult, WindowTask } from './protocol.ts';

/** Bound on the memory of the windows one worker keeps. */
export const WINDOW_BYTES = 96 * 1024 * 1024;
/** What DuckDB holds for each value in a vector: a string's header, or a number with room to spare. */
const VALUE_BYTES = 16;

/** A window's rows as DuckDB handed them over: chunks of up to 2048 rows, in order (null: dropped, not asked for). */
interface Window {
  chunks: (DuckDBDataChunk | null)[];
  /** The window's row at which each chunk starts, and one past its last row. */
  starts: number[];
  bytes: number;
}

export class RowWindows {
  readonly #maxBytes: number;
  readonly #collect: () => void;
  /** Map order is recency: the first key is the least recently used. */
  readonly #windows = new Map<string, Window>();
  #bytes = 0;
  /** Bytes of windows dropped since the last collection. */
  #dropped = 0;

  /**
   * `collect` runs a full garbage collection: a window's chunks hold native memory the collector does
   * not see, freed only when it finalizes them, so it is run whenever half the bound has been dropped.
   */
  constructor(maxBytes = WINDOW_BYTES, collect: () => void = () => undefined) {
    this.#maxBytes = maxBytes;
    this.#collect = collect;
  }

  /** Windows kept now, and their bytes. */
  get held(): { windows: number; bytes: number } {
    return { windows: this.#windows.size, bytes: this.#bytes };
  }

  /** Drops the windows of `keys` that are kept. */
  forget(keys: string[]): void {
    for (const key of keys) {
      const window = this.#windows.get(key);
      if (window === undefined) continue;
      this.#windows.delete(key);
      this.#bytes -= window.bytes;
      this.#dropped += window.bytes;
    }
  }

  /** Rows `from` to `to` (exclusive) of the task's window, each value as its JSON value; reads the window when it is not kept. */
  async rows(connection: DuckDBConnection, task: WindowTask): Promise<WindowResult> {
    const encoders = task.storages.map((storage) => {
      const encoder = valueEncoder(storage);
      if (encoder === null) throw new Error(`No JavaScript encoding for stored kind ${storage}.`);
      return encoder;
    });
    const kept = this.#windows.get(task.key);
    if (kept !== undefined) {
      this.#windows.delete(task.key);
      this.#windows.set(task.key, kept);
      return { rows: cut(kept, encoders, task.from, task.to), read: false, kept: true };
    }
    const window = await this.#read(connection, task);
    const keep = window.bytes <= this.#maxBytes / 4;
    if (keep) {
      this.#windows.set(task.key, window);
      this.#bytes += window.bytes;
      for (const [oldest, old] of this.#windows) {
        if (this.#bytes <= this.#maxBytes) break;
        this.#windows.delete(oldest);
        this.#bytes -= old.bytes;
        this.#dropped += old.bytes;
      }
    } else this.#dropped += window.bytes;
    const rows = cut(window, encoders, task.from, task.to);
    if (this.#dropped >= this.#maxBytes / 2) {
      this.#dropped = 0;
      this.#collect();
    }
    return { rows, read: true, kept: keep };
  }

  /** The window's chunks, streamed (a materialized result costs DuckDB about half as much again to hand over), and their bytes. */
  async #read(connection: DuckDBConnection, task: WindowTask): Promise<Window> {
    const result = await connection.stream(task.sql);
    const window: Window = { chunks: [], starts: [0], bytes: 0 };
    const widths = task.storages.length;
    for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      const start = window.starts[window.starts.length - 1]!;
      const end = start + chunk.rowCount;
      const width = chunk.getColumnVector(widths);
      let bytes = chunk.rowCount * VALUE_BYTES * widths;
      for (let row = 0; row < chunk.rowCount; row++) bytes += width.getItem(row) as number;
      window.bytes += bytes;
      window.chunks.push(chunk);
      window.starts.push(end);
      // Past what may be kept, only the chunks of the rows asked for stay.
      if (window.bytes > this.#maxBytes / 4) {
        window.chunks = window.chunks.map((c, i) => (window.starts[i]! < task.to && window.starts[i + 1]! > task.from ? c : null));
      }
    }
    return window;
  }
}

function cut(window: Window, encoders: ValueEncoder[], from: number, to: number): unknown[][] {
  const rows: unknown[][] = [];
  const end = Math.min(to, window.starts[window.starts.length - 1]!);
  let index = 0;
  for (let row = from; row < end; row++) {
    while (window.starts[index + 1]! <= row) index++;
    const chunk = window.chunks[index]!;
    const at = row - window.starts[index]!;
    const values = new Array<unknown>(encoders.length);
    for (let column = 0; column < encoders.length; column++) {
      const value = chunk.getColumnVector(column).getItem(at);
      values[column] = value === null ? null : encoders[column]!(value);
    }
    rows.push(values);
  }
  return rows;
}
