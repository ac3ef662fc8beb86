/**
 * Windows of stored rows a read worker keeps decoded, so that the pages of
 * a row group after the first cost well under a millisecond instead of the
 * row group's decode each. A part's Parquet holds one data page per column
 * per row group, so any page of a row group costs DuckDB that whole row
 * group (bench/runs/2026-12-01-pages.md, attempt 4). A window whose columns
 * are all of the kinds column-window.ts holds is read by one statement into
 * JavaScript arrays, and its pages are cut and encoded in JavaScript with
 * no statement at all (bench/runs/2026-12-05-page-columns.md). Any other
 * window is copied into a table of the worker's DuckDB, which costs about
 * what two pages do, and every later page of it is a row range of that
 * table; its values too are encoded in JavaScript (columns/value-json-js.ts)
 * rather than by DuckDB's JSON functions, which cost several times the rest
 * of a page. A window is known by its part's content hash, so it can hold
 * no other bytes than the part's; the API thread sends the pages of one
 * window to the same worker (window-reads.ts), and the pages that wait for
 * a busy worker in one batch (window-batches.ts), whose rows one statement
 * cuts from all their windows kept as tables (rowsOfMany).
 *
 * Neither form holds DuckDB's result chunks: a chunk's memory is freed only
 * when the garbage collector gets round to finalizing it, which under a
 * stream of new windows let a worker's memory run hundreds of MB past what
 * it kept (bench/runs/2026-12-02-pages.md); a dropped table's memory is
 * DuckDB's again at once, and counts against its memory limit meanwhile,
 * and arrays are the JavaScript heap's own, counted to the byte. Bounded by
 * the bytes the windows hold (a table's: 16 a value and the bytes of text,
 * which the window's statement counts), least recently used out first; a
 * window past a quarter of WINDOW_BYTES answers its page and is dropped, and
 * the caller is told, so it reads that artifact's pages by statements
 * instead. A window DuckDB cannot copy within its memory limit is not
 * copied: the rows asked for are read on their own. A worker given a larger
 * bound (window-bound.ts) keeps more windows of arrays with it, not wider
 * ones, and no more tables: those live in DuckDB, under its memory limit.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBPreparedStatement, DuckDBVector } from '@duckdb/node-api';
import { valueEncoder, type ValueEncoder } from '../columns/value-json-js.ts';
import { toErrorData, toSluiceError } from '../errors.ts';
import { cutColumns, readColumnWindow, type ColumnWindow } from './column-window.ts';
import type { Settled, WindowResult, WindowTask } from './protocol.ts';
import { WINDOW_BYTES } from './window-bound.ts';

/** What DuckDB holds for each value in a vector: a string's header, or a number with room to spare. */
const VALUE_BYTES = 16;

/** Numbers the windows' tables: one count for the thread, so no two sets of windows on a connection meet. */
let made = 0;

interface TableWindow {
  table: string;
  /** Rows $1 to $2 (exclusive) of the table, prepared once: a page is then a bind and a run. */
  slice: DuckDBPreparedStatement;
  /** The table's column types in order: windows of one shape can be cut by one statement (cutMany). */
  shape: string;
  bytes: number;
}

/** A window as a table of the worker's DuckDB, or as JavaScript arrays (column-window.ts) where its columns allow. */
type Window = TableWindow | ColumnWindow;

function isTable(window: Window): window is TableWindow {
  return 'table' in window;
}

/**
 * A window a batch cuts its tasks' rows from: kept already, or read for the batch (and kept after it
 * or dropped); `later`: not read, its tasks answered one by one once the batch is done.
 */
interface InBatch {
  window: Window | null;
  read: boolean;
  keep: boolean;
  later?: true;
}

export class RowWindows {
  readonly #maxBytes: number;
  /** WINDOW_BYTES, or the bound when it is smaller: the bound on the tables, four times one window's and twice a batch's reads. */
  readonly #measure: number;
  /** Map order is recency: the first key is the least recently used. */
  readonly #windows = new Map<string, Window>();
  #bytes = 0;
  #tableBytes = 0;

  constructor(maxBytes = WINDOW_BYTES, measureBytes = WINDOW_BYTES) {
    this.#maxBytes = maxBytes;
    this.#measure = Math.min(maxBytes, measureBytes);
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
    const encoders = encodersOf(task);
    const kept = this.#windows.get(task.key);
    if (kept !== undefined) {
      this.#windows.delete(task.key);
      this.#windows.set(task.key, kept);
      return { rowsJson: await cut(kept, encoders, task.from, task.to), read: false, kept: true };
    }
    const window = await this.#read(connection, task).catch(() => null);
    // A window DuckDB could not copy (its values past its memory limit) still answers its rows, read on their own.
    if (window === null) return { rowsJson: encode(await readChunks(connection, task.rowsSql), encoders), read: true, kept: false };
    const keep = window.bytes <= this.#measure / 4;
    try {
      return { rowsJson: await cut(window, encoders, task.from, task.to), read: true, kept: keep };
    } finally {
      if (keep) await this.#keep(connection, task.key, window);
      else await drop(connection, window);
    }
  }

  /**
   * The rows of several tasks, in order, each settled on its own: the windows not kept are read
   * first, then the rows of every task whose window is at hand are cut by one statement for each
   * shape of window (a statement costs DuckDB about 0.7 ms whatever its rows, so pages that wait
   * for a busy worker share one; bench/runs/2026-12-04-page-batches.md). The windows a batch reads are
   * held beside the kept ones until it ends; once they reach half the bound it reads no more, and the
   * tasks of the windows left are answered one by one after it, each window kept or dropped as a
   * single task's is.
   */
  async rowsOfMany(connection: DuckDBConnection, tasks: WindowTask[], log: (line: string, cause: unknown) => void): Promise<Settled<WindowResult>[]> {
    const settle = async <T>(work: () => Promise<T>): Promise<Settled<T>> => {
      try {
        return { ok: true, value: await work() };
      } catch (error) {
        const failure = toSluiceError(error);
        // The caller gets a plain INTERNAL; the operator gets the cause, in the log only.
        if (failure.code === 'INTERNAL') log('query worker: a window read failed:', failure.cause ?? error);
        return { ok: false, error: toErrorData(failure) };
      }
    };
    if (tasks.length === 1) return [await settle(() => this.rows(connection, tasks[0]!))];
    const windows = new Map<string, InBatch>();
    const answers = new Array<Settled<WindowResult> | undefined>(tasks.length);
    let readBytes = 0;
    try {
      for (const task of tasks) {
        if (windows.has(task.key)) continue;
        const kept = this.#windows.get(task.key);
        if (kept !== undefined) {
          this.#windows.delete(task.key);
          this.#windows.set(task.key, kept);
          windows.set(task.key, { window: kept, read: false, keep: true });
          continue;
        }
        if (readBytes >= this.#measure / 2) {
          windows.set(task.key, { window: null, read: false, keep: false, later: true });
          continue;
        }
        // A window DuckDB could not copy still answers its tasks' rows, read on their own below.
        const window = await this.#read(connection, task).catch(() => null);
        readBytes += window?.bytes ?? 0;
        windows.set(task.key, { window, read: true, keep: window !== null && window.bytes <= this.#measure / 4 });
      }
      const byShape = new Map<string, number[]>();
      tasks.forEach((task, i) => {
        const window = windows.get(task.key)!.window;
        // A window of arrays is cut in JavaScript below, with no statement to share.
        if (window === null || !isTable(window)) return;
        const same = byShape.get(window.shape);
        if (same === undefined) byShape.set(window.shape, [i]);
        else same.push(i);
      });
      for (const indexes of byShape.values()) {
        if (indexes.length < 2) continue;
        // A statement that fails leaves its tasks to be answered one by one below, each with its own error (logged there).
        const rows = await (async () =>
          cutMany(
            connection,
            indexes.map((i) => ({ window: windows.get(tasks[i]!.key)!.window as TableWindow, encoders: encodersOf(tasks[i]!), from: tasks[i]!.from, to: tasks[i]!.to })),
          ))().catch(() => null);
        rows?.forEach((rowsJson, n) => {
          const task = tasks[indexes[n]!]!;
          const window = windows.get(task.key)!;
          answers[indexes[n]!] = { ok: true, value: { rowsJson, read: window.read, kept: window.keep } };
        });
      }
      for (const [i, task] of tasks.entries()) {
        if (answers[i] !== undefined || windows.get(task.key)!.later) continue;
        const { window, read, keep } = windows.get(task.key)!;
        answers[i] = await settle(async () => ({
          rowsJson: window === null ? encode(await readChunks(connection, task.rowsSql), encodersOf(task)) : await cut(window, encodersOf(task), task.from, task.to),
          read,
          kept: keep,
        }));
      }
    } finally {
      for (const [key, { window, read, keep }] of windows) {
        if (!read || window === null) continue;
        // Each window the batch read is kept or dropped whatever befell another: none may be left a table no one knows.
        try {
          if (keep) await this.#keep(connection, key, window);
          else await drop(connection, window);
        } catch (error) {
          log('query worker: a window could not be kept or dropped:', error);
        }
      }
    }
    // The tasks of windows past what the batch could read, and any a failure above left unanswered.
    for (const [i, task] of tasks.entries()) if (answers[i] === undefined) answers[i] = await settle(() => this.rows(connection, task));
    return answers as Settled<WindowResult>[];
  }

  /**
   * The window as JavaScript arrays when its columns allow and the statement gives its rows in order,
   * else copied into a table of its own; and the bytes it holds.
   */
  async #read(connection: DuckDBConnection, task: WindowTask): Promise<Window> {
    if (task.columns !== undefined) {
      const { sql, first, rows } = task.columns;
      const window = await readColumnWindow(connection, sql, first, rows).catch(() => null);
      if (window !== null) return window;
    }
    return this.#readTable(connection, task);
  }

  async #readTable(connection: DuckDBConnection, task: WindowTask): Promise<TableWindow> {
    const table = `window_${++made}`;
    let slice: DuckDBPreparedStatement | undefined;
    try {
      await connection.run(`CREATE TEMP TABLE ${table} AS ${task.sql}`);
      const size = (await connection.runAndReadAll(`SELECT count(*)::DOUBLE, coalesce(sum(text_bytes), 0)::DOUBLE FROM ${table}`)).getRows()[0]!;
      // Filled by one scan in order, the table numbers its rows in that order: no ORDER BY (a sort) is needed.
      slice = await connection.prepare(`SELECT ${task.storages.map((_, i) => `c${i}`).join(', ')} FROM ${table} WHERE rowid >= $1 AND rowid < $2`);
      const prepared = slice;
      const shape = task.storages.map((_, i) => prepared.columnType(i).toString()).join(', ');
      return { table, slice: prepared, shape, bytes: (size[0] as number) * VALUE_BYTES * task.storages.length + (size[1] as number) };
    } catch (error) {
      slice?.destroySync();
      await connection.run(`DROP TABLE IF EXISTS ${table}`);
      throw error;
    }
  }

  async #keep(connection: DuckDBConnection, key: string, window: Window): Promise<void> {
    this.#windows.set(key, window);
    this.#bytes += window.bytes;
    if (isTable(window)) this.#tableBytes += window.bytes;
    for (const [oldest, old] of this.#windows) {
      if (this.#bytes <= this.#maxBytes && this.#tableBytes <= this.#measure) break;
      // Past the tables' bound only, the oldest table goes: the windows of arrays before it stay.
      if (this.#bytes <= this.#maxBytes && !isTable(old)) continue;
      this.#windows.delete(oldest);
      await this.#drop(connection, old);
    }
  }

  async #drop(connection: DuckDBConnection, window: Window): Promise<void> {
    this.#bytes -= window.bytes;
    if (isTable(window)) this.#tableBytes -= window.bytes;
    await drop(connection, window);
  }
}

async function drop(connection: DuckDBConnection, window: Window): Promise<void> {
  // Arrays are the collector's to free.
  if (!isTable(window)) return;
  window.slice.destroySync();
  await connection.run(`DROP TABLE IF EXISTS ${window.table}`);
}

/** The encoders of a task's columns, in order. */
function encodersOf(task: WindowTask): ValueEncoder[] {
  return task.storages.map((storage) => {
    const encoder = valueEncoder(storage);
    if (encoder === null) throw new Error(`No JavaScript encoding for stored kind ${storage}.`);
    return encoder;
  });
}

async function readChunks(connection: DuckDBConnection, sql: string): Promise<DuckDBDataChunk[]> {
  return (await connection.run(sql)).fetchAllChunks();
}

/** Rows `from` to `to` of the window, in order. */
async function cut(window: Window, encoders: ValueEncoder[], from: number, to: number): Promise<string[]> {
  if (!isTable(window)) return cutColumns(window, encoders, from, to);
  window.slice.bindBigInt(1, BigInt(from));
  window.slice.bindBigInt(2, BigInt(to));
  return encode(await (await window.slice.run()).fetchAllChunks(), encoders);
}

/**
 * Each slice's rows, in order, cut from windows of one shape by one statement: a branch a slice,
 * its rows told apart by the branch's number and put in order by their row numbers.
 */
async function cutMany(connection: DuckDBConnection, slices: { window: TableWindow; encoders: ValueEncoder[]; from: number; to: number }[]): Promise<string[][]> {
  const columns = slices[0]!.encoders.map((_, i) => `c${i}`).join(', ');
  const sql = slices
    .map((s, n) => `SELECT ${n} AS k, rowid AS r, ${columns} FROM ${s.window.table} WHERE rowid >= ${s.from} AND rowid < ${s.to}`)
    .join(' UNION ALL ');
  const rows = slices.map(() => [] as { at: number; json: string }[]);
  for (const chunk of await readChunks(connection, sql)) {
    const branch = chunk.getColumnVector(0);
    const rowid = chunk.getColumnVector(1);
    const vectors = slices[0]!.encoders.map((_, c) => chunk.getColumnVector(c + 2));
    for (let row = 0; row < chunk.rowCount; row++) {
      const n = branch.getItem(row) as number;
      rows[n]!.push({ at: Number(rowid.getItem(row) as bigint), json: rowJson(vectors, slices[n]!.encoders, row) });
    }
  }
  // UNION ALL promises no order: each slice's rows are put in theirs.
  return rows.map((r) => r.sort((a, b) => a.at - b.at).map((x) => x.json));
}

/** Row `row` of a chunk's vectors as its JSON text, each value encoded by its column's encoder. */
function rowJson(vectors: DuckDBVector[], encoders: ValueEncoder[], row: number): string {
  const values = new Array<unknown>(encoders.length);
  for (let column = 0; column < encoders.length; column++) {
    const value = vectors[column]!.getItem(row);
    values[column] = value === null ? null : encoders[column]!(value);
  }
  return JSON.stringify(values);
}

/**
 * Each row of a result's chunks as its JSON text, its values encoded by the encoders of its columns
 * in order. A chunk's vectors are taken once: a reader's value() looks the vector up again for every
 * value, which cost several times the encoding.
 */
function encode(chunks: DuckDBDataChunk[], encoders: ValueEncoder[]): string[] {
  const rows: string[] = [];
  for (const chunk of chunks) {
    const vectors = encoders.map((_, c) => chunk.getColumnVector(c));
    for (let row = 0; row < chunk.rowCount; row++) rows.push(rowJson(vectors, encoders, row));
  }
  return rows;
}
