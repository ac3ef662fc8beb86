/**
 * The JSON value of a stored value, computed in JavaScript from what DuckDB
 * hands over, equal (once parsed) to what `valueJsonExpression` gives for
 * the same column: int8 and decimals as exact decimal strings, non-finite
 * floats and dates as strings, timestamps with six fractional digits and the
 * era last. A window of rows held in a read worker (worker/row-windows.ts)
 * is encoded this way page by page: DuckDB's JSON functions cost several
 * times what decoding the rows does. test/columns/value-json-js.test.ts
 * holds the two encodings equal over each kind's edge values.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { civil, dayAndTime, pad } from './civil-date.ts';
import type { StorageKind } from './column-plan.ts';

/** A non-null stored value's JSON value. */
export type ValueEncoder = (value: DuckDBValue) => unknown;

interface Micros {
  micros: bigint;
  isFinite: boolean;
}

interface Days {
  days: number;
  isFinite: boolean;
}

interface Scaled {
  value: bigint;
  scale: number;
}

/** `YYYY-MM-DD`, and whether it is BC: 44 BC is year 44, not the astronomical -43. */
function datePart(days: number): { text: string; bc: boolean } {
  const [year, month, day] = civil(days);
  const bc = year <= 0;
  return { text: `${pad(bc ? 1 - year : year, 4)}-${pad(month, 2)}-${pad(day, 2)}`, bc };
}

function dateJson(value: DuckDBValue): string {
  const date = value as unknown as Days;
  if (!date.isFinite) return date.days > 0 ? 'infinity' : '-infinity';
  const { text, bc } = datePart(date.days);
  return bc ? `${text} BC` : text;
}

function timestampJson(zone: string): ValueEncoder {
  return (value) => {
    const stamp = value as unknown as Micros;
    if (!stamp.isFinite) return stamp.micros > 0n ? 'infinity' : '-infinity';
    const { days, time } = dayAndTime(stamp.micros);
    const { text, bc } = datePart(days);
    return `${text}T${time}${zone}${bc ? ' BC' : ''}`;
  };
}

function floatJson(value: DuckDBValue): unknown {
  const x = value as number;
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return x;
}

/** DuckDB's DECIMAL as text: the scale's digits after the point, none when the scale is 0. */
function decimalJson(value: DuckDBValue): string {
  const { value: scaled, scale } = value as unknown as Scaled;
  if (scale === 0) return scaled.toString();
  const digits = (scaled < 0n ? -scaled : scaled).toString().padStart(scale + 1, '0');
  return `${scaled < 0n ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

const ENCODERS: Partial<Record<StorageKind, ValueEncoder>> = {
  bool: (value) => value,
  int: (value) => value,
  float: floatJson,
  int8: (value) => (value as bigint).toString(),
  decimal: decimalJson,
  // Stored as text already: to_json of the text is the text.
  numeric_text: (value) => value,
  text: (value) => value,
  bytea: (value) => value,
  date: dateJson,
  timestamp: timestampJson(''),
  // The reading connection runs with TimeZone=UTC, as the expression's does.
  timestamptz: timestampJson('Z'),
};

/**
 * The encoder of a storage kind, or null for one only DuckDB's expression
 * encodes (json_array: DuckDB parses and writes the JSON text again, and its
 * reading of odd numbers is its own).
 */
export function valueEncoder(storage: StorageKind): ValueEncoder | null {
  return ENCODERS[storage] ?? null;
}
