/**
 * How a SQLite result column is typed and stored. SQLite types values, not
 * columns: a column has a declared type (its affinity) and each value its
 * own storage class (INTEGER, REAL, TEXT, BLOB, NULL), and the two may
 * disagree. Sluice keeps one type per column, so:
 *
 * - A column with a declared type is planned from it, by SQLite's own
 *   affinity rules: INTEGER → 64-bit integer (exact strings in JSON),
 *   REAL → double, TEXT → text, BLOB (or none) → base64; NUMERIC → a
 *   boolean when declared BOOLEAN/BOOL, text when the name says DATE or
 *   TIME (SQLite keeps dates as ISO text), and exact decimal text otherwise.
 * - A column with no declared type (an expression, or a table column
 *   declared without one) is planned from the storage class of its first
 *   non-NULL value among the first rows; all NULL there → text.
 * - A value of another class is converted only where that is exact (an
 *   integer into a text or decimal column as its digits, into a double
 *   column up to 2^53; 0 and 1 into a boolean); any other value fails the
 *   query with SQL_ERROR naming the column and how to CAST it.
 *
 * `type` is the declared type in lower case, or the storage class of an
 * undeclared column. This module is also what the statement process loads:
 * it imports nothing of the server.
 */
import type { StorageKind } from '../../columns/column-plan.ts';
import type { SqliteValue } from './engine/sqlite-connection.ts';

export type StorageClass = 'integer' | 'real' | 'text' | 'blob' | 'null';

/** A column's plan as the statement process decides it and the export hands to the core. */
export interface SqliteColumnPlan {
  name: string;
  type: string;
  storage: StorageKind;
}

type Affinity = 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC';

/** SQLite's affinity of a declared type, by its rules in order (datatype3.html, section 3.1). */
export function affinityOf(declared: string): Affinity {
  const upper = declared.toUpperCase();
  if (upper.includes('INT')) return 'INTEGER';
  if (upper.includes('CHAR') || upper.includes('CLOB') || upper.includes('TEXT')) return 'TEXT';
  if (upper.includes('BLOB') || upper.trim() === '') return 'BLOB';
  if (upper.includes('REAL') || upper.includes('FLOA') || upper.includes('DOUB')) return 'REAL';
  return 'NUMERIC';
}

const BOOLEAN_NAMES = new Set(['BOOLEAN', 'BOOL']);

function numericStorage(declared: string): StorageKind {
  const base = declared.toUpperCase().split('(')[0]!.trim();
  if (BOOLEAN_NAMES.has(base)) return 'bool';
  if (base.includes('DATE') || base.includes('TIME')) return 'text';
  return 'numeric_text';
}

const BY_AFFINITY: Record<Exclude<Affinity, 'NUMERIC'>, StorageKind> = { INTEGER: 'int8', TEXT: 'text', BLOB: 'bytea', REAL: 'float' };
const BY_CLASS: Record<StorageClass, StorageKind> = { integer: 'int8', real: 'float', text: 'text', blob: 'bytea', null: 'text' };

export function storageClassOf(value: SqliteValue): StorageClass {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return 'integer';
  if (typeof value === 'number') return 'real';
  if (typeof value === 'string') return 'text';
  return 'blob';
}

/** The plan of a column from its declared type, or from the class of its first non-NULL value when it has none. */
export function planColumn(name: string, declared: string | null, firstClass: StorageClass): SqliteColumnPlan {
  if (declared === null || declared.trim() === '') return { name, type: firstClass, storage: BY_CLASS[firstClass] };
  const affinity = affinityOf(declared);
  const storage = affinity === 'NUMERIC' ? numericStorage(declared) : BY_AFFINITY[affinity];
  return { name, type: declared.toLowerCase(), storage };
}

/** Doubles hold every integer up to 2^53 exactly. */
const EXACT_IN_DOUBLE = 2n ** 53n;

function doubleText(value: number): string {
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return Object.is(value, -0) ? '-0' : String(value);
}

/** A value as the text its column's storage reads from the CSV, or undefined when it cannot be converted exactly. */
function convert(storage: StorageKind, value: Exclude<SqliteValue, null>): string | undefined {
  switch (storage) {
    case 'int8':
      return typeof value === 'bigint' ? String(value) : undefined;
    case 'float':
      if (typeof value === 'number') return doubleText(value);
      return typeof value === 'bigint' && value <= EXACT_IN_DOUBLE && value >= -EXACT_IN_DOUBLE ? String(value) : undefined;
    case 'numeric_text':
      if (typeof value === 'bigint') return String(value);
      return typeof value === 'number' ? doubleText(value) : undefined;
    case 'text':
      return typeof value === 'string' ? value : typeof value === 'bigint' ? String(value) : undefined;
    case 'bytea':
      return value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') : undefined;
    case 'bool':
      return value === 0n ? 'false' : value === 1n ? 'true' : undefined;
    default:
      return undefined;
  }
}

/** What a column's values are, in the words of a message. */
const STORED_AS: Partial<Record<StorageKind, string>> = {
  int8: 'integers',
  float: 'real numbers',
  numeric_text: 'numbers',
  text: 'text',
  bytea: 'blobs',
  bool: 'booleans (0 or 1)',
};

/** A value that cannot join its column: SQL_ERROR, naming the column and the way out. */
export class MixedColumnError extends Error {
  constructor(column: SqliteColumnPlan, value: Exclude<SqliteValue, null>) {
    const name = `"${column.name.replaceAll('"', '""')}"`;
    super(
      `Column ${name} holds a ${storageClassOf(value).toUpperCase()} value among ${STORED_AS[column.storage] ?? column.storage}, and a column keeps one type; ` +
        `CAST it to one type in the query, for example CAST(${name} AS TEXT) or CAST(${name} AS REAL).`,
    );
    this.name = 'MixedColumnError';
  }
}

/** The CSV text of one value in its column, null for NULL; throws MixedColumnError for a value that does not fit exactly. */
export function valueText(column: SqliteColumnPlan, value: SqliteValue): string | null {
  if (value === null) return null;
  const text = convert(column.storage, value);
  if (text === undefined) throw new MixedColumnError(column, value);
  return text;
}

/** Where a value's text goes: as it is when it can never need quoting, or quoted where it must be. */
export interface ValueSink {
  null(): void;
  ascii(text: string): void;
  string(text: string): void;
  /** A number as String() writes it, or as `otherwise` does for the numbers the sink does not write itself. */
  number(value: number, otherwise: (value: number) => string): void;
}

/** Storage whose text is digits, a boolean word or base64: never a comma, quote or line break. */
const ASCII_STORAGE = new Set<StorageKind>(['int8', 'float', 'numeric_text', 'bytea', 'bool']);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An INTEGER value's digits: through a double (written without a string) when it holds the value exactly. */
function writeInteger(sink: ValueSink, value: bigint): void {
  if (value <= MAX_SAFE && value >= -MAX_SAFE) sink.number(Number(value), String);
  else sink.ascii(String(value));
}

/**
 * Writes one value of `column` to `sink` (valueText's text, without a string
 * per row where the value is a number, a boolean or ASCII text); throws
 * MixedColumnError as valueText does. The commonest pairs of storage and
 * class are written first; every other goes through convert, as valueText.
 */
export function valueWriter(column: SqliteColumnPlan): (sink: ValueSink, value: SqliteValue) => void {
  const ascii = ASCII_STORAGE.has(column.storage);
  const storage = column.storage;
  const numberText = storage === 'float' || storage === 'numeric_text';
  const integerText = storage === 'int8' || storage === 'numeric_text' || storage === 'text';
  return (sink, value) => {
    if (value === null) return sink.null();
    // A TEXT value in a text column, the commonest case, needs no conversion.
    if (storage === 'text' && typeof value === 'string') return sink.string(value);
    if (numberText && typeof value === 'number') return sink.number(value, doubleText);
    if (integerText && typeof value === 'bigint') return writeInteger(sink, value);
    if (storage === 'bool' && (value === 0n || value === 1n)) return sink.ascii(value === 0n ? 'false' : 'true');
    const text = convert(storage, value);
    if (text === undefined) throw new MixedColumnError(column, value);
    if (ascii) sink.ascii(text);
    else sink.string(text);
  };
}
