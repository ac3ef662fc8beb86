/**
 * Each DuckDB value as the text its column's storage expects in the
 * export's CSV (export/column-types.ts says which storage): exact integers
 * and decimals, the shortest text of a float, ISO dates and timestamps,
 * base64 for BLOB, DuckDB's own text for TIME, INTERVAL, UUID and the like,
 * and JSON text for nested values. A value that has no exact text in its
 * storage (a TIMESTAMP_NS with nanoseconds) fails the export naming the
 * column, rather than being rounded.
 */
import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBListValue,
  DuckDBArrayValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  DuckDBUnionValue,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { SluiceError } from '../../../errors.ts';
import { dateText, timestampText } from './calendar-text.ts';

export type ValueText = (value: DuckDBValue) => string;

/** A double as text DuckDB reads back to the same double; -0 keeps its sign. */
function doubleText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return Object.is(value, -0) ? '-0' : String(value);
}

/** The shortest text that reads back to the same 32-bit float (1.1, not 1.100000023841858). */
function floatText(value: number): string {
  if (!Number.isFinite(value) || Object.is(value, -0)) return doubleText(value);
  for (let digits = 1; digits <= 9; digits++) {
    const shortest = Number(value.toPrecision(digits));
    if (Math.fround(shortest) === value) return String(shortest);
  }
  return String(value);
}

function timestampOf(value: DuckDBValue, column: string): { micros: bigint; finite: boolean } {
  if (value instanceof DuckDBTimestampValue || value instanceof DuckDBTimestampTZValue) return { micros: value.micros, finite: value.isFinite };
  if (value instanceof DuckDBTimestampSecondsValue) return { micros: value.seconds * 1_000_000n, finite: value.isFinite };
  if (value instanceof DuckDBTimestampMillisecondsValue) return { micros: value.millis * 1_000n, finite: value.isFinite };
  if (value instanceof DuckDBTimestampNanosecondsValue) {
    if (value.isFinite && value.nanos % 1_000n !== 0n) {
      throw new SluiceError(
        'SQL_ERROR',
        `Column "${column}" holds a timestamp with nanoseconds, which a result keeps only to the microsecond; cast it in the query, for example CAST("${column}" AS TIMESTAMP) or to VARCHAR.`,
        { column },
      );
    }
    return { micros: value.nanos / 1_000n, finite: value.isFinite };
  }
  return { micros: 0n, finite: false };
}

/** The text of one column's values, chosen once per column from its type. */
export function valueText(type: DuckDBType, column: string): ValueText {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return (v) => (v === true ? 'true' : 'false');
    case DuckDBTypeId.FLOAT:
      return (v) => floatText(v as number);
    case DuckDBTypeId.DOUBLE:
      return (v) => doubleText(v as number);
    case DuckDBTypeId.DECIMAL:
      return (v) => (v as DuckDBDecimalValue).toString();
    case DuckDBTypeId.DATE:
      return (v) => dateText((v as DuckDBDateValue).days, (v as DuckDBDateValue).isFinite);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS: {
      return (v) => {
        const { micros, finite } = timestampOf(v, column);
        return timestampText(micros, finite);
      };
    }
    case DuckDBTypeId.TIMESTAMP_TZ:
      return (v) => timestampText((v as DuckDBTimestampTZValue).micros, (v as DuckDBTimestampTZValue).isFinite, '+00');
    case DuckDBTypeId.BLOB:
      return (v) => Buffer.from((v as DuckDBBlobValue).bytes).toString('base64');
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
      return (v) => JSON.stringify(jsonOf(v, column));
    default:
      return (v) => String(v);
  }
}

/**
 * A nested value as JSON by the contract's rules for its leaves: integers
 * that may exceed 2^53 and decimals as exact strings, non-finite floats as
 * strings, dates and timestamps as ISO text, BLOB as base64; a MAP as an
 * object keyed by each key's text; a UNION as its member's value.
 */
function jsonOf(value: DuckDBValue, column: string): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : doubleText(value);
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue) return value.items.map((item) => jsonOf(item, column));
  if (value instanceof DuckDBStructValue) return Object.fromEntries(Object.entries(value.entries).map(([k, v]) => [k, jsonOf(v, column)]));
  if (value instanceof DuckDBMapValue) return Object.fromEntries(value.entries.map(({ key, value: v }) => [String(jsonOf(key, column)), jsonOf(v, column)]));
  if (value instanceof DuckDBUnionValue) return jsonOf(value.value, column);
  if (value instanceof DuckDBBlobValue) return Buffer.from(value.bytes).toString('base64');
  if (value instanceof DuckDBDateValue) return dateText(value.days, value.isFinite);
  if (value instanceof DuckDBTimestampTZValue) return timestampText(value.micros, value.isFinite, 'Z').replace(' ', 'T');
  if (
    value instanceof DuckDBTimestampValue ||
    value instanceof DuckDBTimestampSecondsValue ||
    value instanceof DuckDBTimestampMillisecondsValue ||
    value instanceof DuckDBTimestampNanosecondsValue
  ) {
    const { micros, finite } = timestampOf(value, column);
    return timestampText(micros, finite).replace(' ', 'T');
  }
  return String(value);
}
