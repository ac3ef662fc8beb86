/**
 * A window of rows held as JavaScript arrays, one a column: the values of a
 * fixed-width column copied whole out of a DuckDB list (a typed array and
 * its validity bits), a text column's values as one buffer of their UTF-8
 * bytes and where each ends. A page of such a window is cut and encoded in
 * JavaScript with no DuckDB statement at all; one statement reads the whole
 * window (read-sql.ts, windowColumnsSql), where a window kept as a table
 * costs a CREATE TABLE, its size and one statement a page, and each text
 * value of a page a call into DuckDB to copy it out
 * (bench/runs/2026-12-05-page-columns.md). The memory is the JavaScript
 * heap's own, counted exactly, and freed with the arrays: nothing of
 * DuckDB's is held (DuckDB's chunks, held instead, were freed only when the
 * collector finalized them; row-windows.ts).
 *
 * The statement's aggregates see the rows in the order one thread scans
 * them; that order is checked against the rows' numbers, and a window whose
 * lists are not exactly its rows in order is not made (the caller copies a
 * table instead).
 */
import duckdb from '@duckdb/node-bindings';
import { DuckDBTypeId, type DuckDBConnection, type DuckDBDataChunk, type DuckDBListType, type DuckDBValue } from '@duckdb/node-api';
import type { ValueEncoder } from '../columns/value-json-js.ts';
import { COLUMN_WINDOW_TEXT_BYTES } from './protocol.ts';

/** One column of a window: its value at a row, non-null (`valid` says which are), and the bytes it holds. */
interface Column {
  valid: (row: number) => boolean;
  value: (row: number) => DuckDBValue;
  bytes: number;
}

export interface ColumnWindow {
  rows: number;
  columns: Column[];
  bytes: number;
}

const DATE_INFINITY = 2 ** 31 - 1;
const TIMESTAMP_INFINITY = 2n ** 63n - 1n;

/** Whether row 0 of a vector is NULL (no validity bits: every row is valid). */
function isNull(vector: duckdb.Vector): boolean {
  const bits = duckdb.vector_get_validity(vector, 8);
  return bits !== null && bits !== undefined && (bits[0]! & 1) === 0;
}

/**
 * A list's values of one row: the child vector's bytes for its entries and their validity bits (null:
 * all valid), each in an ArrayBuffer of its own (the bindings copy what they hand over, and build no
 * Buffer from DuckDB's memory).
 */
function listValues(chunk: DuckDBDataChunk, column: number, width: number): { data: Uint8Array; valid: Uint8Array | null; length: number } | null {
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, column);
  if (isNull(vector)) return null;
  const entry = duckdb.vector_get_data(vector, 16);
  const [offset, length] = new BigUint64Array(entry.buffer, entry.byteOffset, 2);
  // One row of lists: its entries start the child vector. Anything else is not what the statement makes.
  if (offset !== 0n) return null;
  const count = Number(length);
  const child = duckdb.list_vector_get_child(vector);
  const bits = duckdb.vector_get_validity(child, Math.ceil(count / 64) * 8);
  return { data: whole(duckdb.vector_get_data(child, count * width)), valid: bits ? whole(bits) : null, length: count };
}

/** The bytes as the whole of an ArrayBuffer, which a typed array of any width can view from its start. */
function whole(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

function validBy(bits: Uint8Array | null): (row: number) => boolean {
  return bits === null ? () => true : (row) => ((bits[row >> 3]! >> (row & 7)) & 1) === 1;
}

/** The bytes of a VARCHAR value at row 0, copied; null when it is NULL. */
function textBytes(chunk: DuckDBDataChunk, column: number): Buffer | null {
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, column);
  if (isNull(vector)) return null;
  const header = duckdb.vector_get_data(vector, 16);
  const length = new DataView(header.buffer, header.byteOffset, 16).getUint32(0, true);
  // A string of 12 bytes or fewer lives in the header itself; a longer one behind the pointer at byte 8.
  if (length <= 12) return Buffer.from(header.subarray(4, 4 + length));
  const bytes = duckdb.get_data_from_pointer(header.buffer as ArrayBuffer, header.byteOffset + 8, length);
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
}

/** A fixed-width column of the kinds windowColumnsSql lists, or null for a type it does not make. */
function fixedColumn(type: DuckDBTypeId, values: { data: Uint8Array; valid: Uint8Array | null }): Column | null {
  const { data, valid } = values;
  const buffer = data.buffer;
  const bytes = data.byteLength + (valid?.byteLength ?? 0);
  const column = (value: (row: number) => DuckDBValue): Column => ({ valid: validBy(valid), value, bytes });
  switch (type) {
    case DuckDBTypeId.BOOLEAN:
      return column((row) => data[row] !== 0);
    case DuckDBTypeId.INTEGER: {
      const items = new Int32Array(buffer);
      return column((row) => items[row]!);
    }
    case DuckDBTypeId.BIGINT: {
      // A value a double holds exactly is read as one: its text is the same, and no BigInt is made for it.
      const items = new BigInt64Array(buffer);
      const halves = new Int32Array(buffer);
      return column((row) => {
        const high = halves[2 * row + 1]!;
        return high >= -0x200000 && high < 0x200000 ? high * 2 ** 32 + (halves[2 * row]! >>> 0) : items[row]!;
      });
    }
    case DuckDBTypeId.DOUBLE: {
      const items = new Float64Array(buffer);
      return column((row) => items[row]!);
    }
    case DuckDBTypeId.DATE: {
      const items = new Int32Array(buffer);
      // What the encoders read of DuckDB's date value (value-json-js.ts).
      return column((row) => ({ days: items[row]!, isFinite: Math.abs(items[row]!) !== DATE_INFINITY }) as unknown as DuckDBValue);
    }
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ: {
      const items = new BigInt64Array(buffer);
      return column((row) => {
        const micros = items[row]!;
        return { micros, isFinite: micros !== TIMESTAMP_INFINITY && micros !== -TIMESTAMP_INFINITY } as unknown as DuckDBValue;
      });
    }
    default:
      return null;
  }
}

const WIDTH: Partial<Record<DuckDBTypeId, number>> = {
  [DuckDBTypeId.BOOLEAN]: 1,
  [DuckDBTypeId.INTEGER]: 4,
  [DuckDBTypeId.BIGINT]: 8,
  [DuckDBTypeId.DOUBLE]: 8,
  [DuckDBTypeId.DATE]: 4,
  [DuckDBTypeId.TIMESTAMP]: 8,
  [DuckDBTypeId.TIMESTAMP_TZ]: 8,
};

/** A text column from its values joined and their byte lengths (INTEGER); null when they do not agree. */
function textColumn(joined: Buffer | null, lengths: { data: Uint8Array; valid: Uint8Array | null; length: number }): Column | null {
  const sizes = new Int32Array(lengths.data.buffer);
  const valid = validBy(lengths.valid);
  // Where each value starts; the last entry is where the last one ends.
  // Int32: the statement bounds a window's text at COLUMN_WINDOW_TEXT_BYTES.
  const starts = new Int32Array(lengths.length + 1);
  let at = 0;
  for (let row = 0; row < lengths.length; row++) {
    starts[row] = at;
    if (valid(row)) at += sizes[row]!;
    if (at > COLUMN_WINDOW_TEXT_BYTES) return null;
  }
  starts[lengths.length] = at;
  // string_agg answers NULL when every value is NULL, and the statement does past its bound on text.
  const text = joined ?? (at === 0 ? Buffer.alloc(0) : null);
  if (text === null || text.length !== at) return null;
  return {
    valid,
    value: (row) => text.toString('utf8', starts[row]!, starts[row + 1]!),
    bytes: text.byteLength + starts.byteLength + (lengths.valid?.byteLength ?? 0),
  };
}

/**
 * The window of `rows` rows from row `first` of its part, read by `sql` (windowColumnsSql), or null
 * when the statement's lists are not exactly those rows in order, or hold a type not made here.
 */
export async function readColumnWindow(connection: DuckDBConnection, sql: string, first: number, rows: number): Promise<ColumnWindow | null> {
  const result = await connection.run(sql);
  const types = result.columnTypes();
  const chunk = await result.fetchChunk();
  if (chunk === null || chunk.rowCount !== 1 || types[0]?.typeId !== DuckDBTypeId.LIST) return null;
  const numbers = listValues(chunk, 0, 8);
  if (numbers === null || numbers.length !== rows || numbers.valid !== null) return null;
  // Row numbers as their two 32-bit halves: comparing BigInts would make one a row.
  const order = new Uint32Array(numbers.data.buffer);
  for (let row = 0; row < rows; row++) {
    const n = first + row;
    if (order[2 * row] !== n % 2 ** 32 || order[2 * row + 1] !== Math.floor(n / 2 ** 32)) return null;
  }
  const columns: Column[] = [];
  for (let at = 1; at < types.length; at++) {
    const type = types[at]!;
    if (type.typeId === DuckDBTypeId.VARCHAR) {
      const lengths = types[at + 1]?.typeId === DuckDBTypeId.LIST && (types[at + 1] as DuckDBListType).valueType.typeId === DuckDBTypeId.INTEGER ? listValues(chunk, at + 1, 4) : null;
      if (lengths === null || lengths.length !== rows) return null;
      const column = textColumn(textBytes(chunk, at), lengths);
      if (column === null) return null;
      columns.push(column);
      at += 1;
      continue;
    }
    if (type.typeId !== DuckDBTypeId.LIST) return null;
    const child = (type as DuckDBListType).valueType.typeId;
    const width = WIDTH[child];
    const values = width === undefined ? null : listValues(chunk, at, width);
    const column = values === null || values.length !== rows ? null : fixedColumn(child, values);
    if (column === null) return null;
    columns.push(column);
  }
  return { rows, columns, bytes: columns.reduce((sum, c) => sum + c.bytes, 0) };
}

/** Rows `from` to `to` (exclusive) of the window, each as its JSON text, its values encoded by the encoders of its columns in order. */
export function cutColumns(window: ColumnWindow, encoders: ValueEncoder[], from: number, to: number): string[] {
  const out: string[] = [];
  const end = Math.min(to, window.rows);
  const values = new Array<unknown>(window.columns.length);
  for (let row = from; row < end; row++) {
    for (let c = 0; c < window.columns.length; c++) {
      const column = window.columns[c]!;
      values[c] = column.valid(row) ? encoders[c]!(column.value(row)) : null;
    }
    out.push(JSON.stringify(values));
  }
  return out;
}
