/**
 * Windows of stored rows a read worker keeps decoded, so that the pages of
 * a row group after the first cost about a millisecond instead of the row
 * group's decode each. A part's Parquet holds one data page per column per
 * row group, so any page of a row group costs DuckDB that whole row group
 * (bench/runs/2026-12-01-pages.md, attempt 4); copying the row group into a
 * table of the worker's DuckDB costs about what two pages do, and every
 * later page of it is a row range of that table, encoded in JavaScript
 * (columns/value-json-js.ts) rather than by DuckDB's JSON functions, which
 * cost several times the rest of a page. A window is known by its part's
 * content hash, so it can hold no other bytes than the part's; the API
 * thread sends the pages of one window to the same worker (window-reads.ts).
 *
 * The windows are tables rather than result chunks held in JavaScript:
 * a chunk's memory is freed only when the garbage collector gets round to
 * finalizing it, which under a stream of new windows let a worker's memory
 * run hundreds of MB past what it kept (bench/runs/2026-12-02-pages.md); a
 * dropped table's memory is DuckDB's again at once, and counts against its
 * memory limit meanwhile. Bounded by the bytes the windows hold (16 a value,
 * and the bytes of text, which the window's statement counts), least
 * recently used out first; a window past a quarter of the bound answers its
 * page and is dropped, and the caller is told, so it reads that artifact's
 * pages by statements instead. A window DuckDB cannot copy within its
 * memory limit is not copied: the rows asked for are read on their own.
 */
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBResultReader } from '@duckdb/node-api';
import { valueEncoder, type ValueEncoder } from '../columns/value-json-js.ts';
import type { WindowResult, WindowTask } from './protocol.ts';

/** Bound on the bytes of the windows one worker keeps. */
export const WINDOW_BYTES = 64 * 1024 * 1024;
/** What DuckDB holds for each value in a vector: a string's header, or a number with room to spare. */
const VALUE_BYTES = 16;

/** Numbers the windows' tables: one count for the thread, so no two sets of windows on a connection meet. */
let made = 0;

interface Window {
  table: string;
  /** Rows $1 to $2 (exclusive) of the table, prepared once: a page is then a bind and a run. */
  slice: DuckDBPreparedStatement;
  bytes: number;
}

export class RowWindows {
  readonly #maxBytes: number;
  /** Map order is recency: the first key is the least recently used. */
  readonly #windows = new Map<string, Window>();
  #bytes = 0;

  constructor(maxBytes = WINDOW_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Windows kept now, and their bytes. */
  get held(): { windows: number; bytes: number } {
    return { windows: this.#windows.size, bytes: this.#bytes };
  }

  /** Drops the windows of `keys` that are kept. */
  async forget(connection: DuckDBConnection, keys: string[]): Promise<void> {
    for (const key of keys) {
      const window = this.#windows.get(key);
      if (window === undefined) continue;
      this.#windows.delete(key);
      await this.#drop(connection, window);
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
      return { rowsJson: await cut(kept, encoders, task.from, task.to), read: false, kept: true };
    }
    const window = await this.#read(connection, task).catch(() => null);
    // A window DuckDB could not copy (its values past its memory limit) still answers its rows, read on their own.
    if (window === null) return { rowsJson: encode(await connection.runAndReadAll(task.rowsSql), encoders), read: true, kept: false };
    const keep = window.bytes <= this.#maxBytes / 4;
    try {
      return { rowsJson: await cut(window, encoders, task.from, task.to), read: true, kept: keep };
    } finally {
      if (keep) await this.#keep(connection, task.key, window);
      else await drop(connection, window);
    }
  }

  /** The window copied into a table of its own, and the bytes it holds. */
  async #read(connection: DuckDBConnection, task: WindowTask): Promise<Window> {
    const table = `window_${++made}`;
    try {
      await connection.run(`CREATE TEMP TABLE ${table} AS ${task.sql}`);
      const size = (await connection.runAndReadAll(`SELECT count(*)::DOUBLE, coalesce(sum(text_bytes), 0)::DOUBLE FROM ${table}`)).getRows()[0]!;
      // Filled by one scan in order, the table numbers its rows in that order: no ORDER BY (a sort) is needed.
      const slice = await connection.prepare(`SELECT ${task.storages.map((_, i) => `c${i}`).join(', ')} FROM ${table} WHERE rowid >= $1 AND rowid < $2`);
      return { table, slice, bytes: (size[0] as number) * VALUE_BYTES * task.storages.length + (size[1] as number) };
    } catch (error) {
      await connection.run(`DROP TABLE IF EXISTS ${table}`);
      throw error;
    }
  }

  async #keep(connection: DuckDBConnection, key: string, window: Window): Promise<void> {
    this.#windows.set(key, window);
    this.#bytes += window.bytes;
    for (const [oldest, old] of this.#windows) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#windows.delete(oldest);
      await this.#drop(connection, old);
    }
  }

  async #drop(connection: DuckDBConnection, window: Window): Promise<void> {
    this.#bytes -= window.bytes;
    await drop(connection, window);
  }
}

async function drop(connection: DuckDBConnection, window: Window): Promise<void> {
  window.slice.destroySync();
  await connection.run(`DROP TABLE IF EXISTS ${window.table}`);
}

/** Rows `from` to `to` of the window, in order. */
async function cut(window: Window, encoders: ValueEncoder[], from: number, to: number): Promise<string[]> {
  window.slice.bindBigInt(1, BigInt(from));
  window.slice.bindBigInt(2, BigInt(to));
  return encode(await window.slice.runAndReadAll(), encoders);
}

/** Each row of a result as its JSON text, its values encoded by the encoders of its columns in order. */
function encode(reader: DuckDBResultReader, encoders: ValueEncoder[]): string[] {
  const rows: string[] = [];
  for (let row = 0; row < reader.currentRowCount; row++) {
    const values = new Array<unknown>(encoders.length);
    for (let column = 0; column < encoders.length; column++) {
      const value = reader.value(column, row);
      values[column] = value === null ? null : encoders[column]!(value);
    }
    rows.push(JSON.stringify(values));
  }
  return rows;
}
