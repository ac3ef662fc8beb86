/**
 * Checks a filter value against the column it is compared with, before it is
 * bound: a caller who sends "abc" for an integer column, a number outside the
 * column's range or a date that is not on the calendar gets a clear
 * VALIDATION_ERROR naming the column, not a conversion error from DuckDB
 * (which would surface as INTERNAL). It also says what type the value is cast
 * to, so a decimal is never rounded before it is compared.
 */
import { SluiceError } from '../errors.ts';
import type { PlannedColumn } from '../columns/column-plan.ts';

/** A value bound to a DuckDB statement's parameter, never spliced into its text. */
export type BoundValue = string | number | boolean | null;

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const INTEGER = /^[+-]?\d+$/;
// The offset only after a time: DuckDB refuses "2026-01-01+05" for a timestamp.
const TEMPORAL = /^(-?\d{4,})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/;

/** DuckDB's widest exact decimal. */
const MAX_PRECISION = 38;
const INT_RANGE = { min: -(2n ** 31n), max: 2n ** 31n - 1n };
const INT8_RANGE = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
/** Years DuckDB can hold, a little inside its limits (its DATE reaches 5881580, TIMESTAMP 294247). */
const YEARS = { date: { min: -5877640, max: 5881579 }, timestamp: { min: -290307, max: 294246 } };

function invalid(column: PlannedColumn, expected: string): SluiceError {
  return new SluiceError('VALIDATION_ERROR', `Filter value for "${column.name}" (${column.type}) must be ${expected}.`, {
    column: column.name,
  });
}

/** The number written without an exponent, leading zeros or trailing fractional zeros; null if it is not a number. */
function plainDecimal(text: string): { sign: string; int: string; fraction: string } | null {
  const m = NUMBER.exec(text);
  if (m === null || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const digits = m[2]! + (m[3] ?? '');
  // The exponent only moves the point; a huge one is refused by the caller's digit limit, so cap it to stay cheap.
  const exponent = Math.max(-1000, Math.min(1000, Number(m[4] ?? '0')));
  const point = m[2]!.length + exponent;
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : point > digits.length ? digits + '0'.repeat(point - digits.length) : digits;
  const at = Math.max(point, 1);
  const int = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const fraction = padded.slice(at).replace(/0+$/, '');
  return { sign: m[1] === '-' && /[1-9]/.test(digits) ? '-' : '', int, fraction };
}

function scaleOf(column: PlannedColumn): { precision: number; scale: number } {
  const m = /^DECIMAL\((\d+),(\d+)\)$/.exec(column.duckType);
  return m === null ? { precision: MAX_PRECISION, scale: 0 } : { precision: Number(m[1]), scale: Number(m[2]) };
}

function checkDecimal(column: PlannedColumn, text: string): string {
  const plain = plainDecimal(text);
  if (plain === null) throw invalid(column, 'a number or a decimal string');
  const { precision, scale } = scaleOf(column);
  const intDigits = Math.max(precision - scale, plain.int === '0' ? 0 : plain.int.length);
  if (intDigits + Math.max(scale, plain.fraction.length) > MAX_PRECISION) {
    throw invalid(column, `a number that fits in ${MAX_PRECISION} decimal digits next to this column's ${precision - scale} integer and ${scale} fractional digits`);
  }
  return `${plain.sign}${plain.int}${plain.fraction === '' ? '' : `.${plain.fraction}`}`;
}

function checkInteger(column: PlannedColumn, value: unknown, range: { min: bigint; max: bigint }): string {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !INTEGER.test(text)) throw invalid(column, 'an integer (a string for int8 beyond 2^53)');
  const n = BigInt(text);
  if (n < range.min || n > range.max) throw invalid(column, `an integer from ${range.min} to ${range.max}`);
  return text;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function checkTemporal(column: PlannedColumn, value: unknown, years: { min: number; max: number }): string {
  const expected = 'an ISO 8601 date or timestamp string';
  if (typeof value !== 'string') throw invalid(column, expected);
  if (value === 'infinity' || value === '-infinity') return value;
  const m = TEMPORAL.exec(value);
  if (m === null) throw invalid(column, expected);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const monthDays = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  const clock = [m[4], m[5], m[6]].map((part) => Number(part ?? '0'));
  const offset = [m[7], m[8]].map((part) => Number(part ?? '0'));
  const valid =
    year >= years.min &&
    year <= years.max &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= monthDays[month - 1]! &&
    clock[0]! <= 23 &&
    clock[1]! <= 59 &&
    clock[2]! <= 59 &&
    offset[0]! <= 15 &&
    offset[1]! <= 59;
  if (!valid) throw invalid(column, `${expected} of a real date and time, years ${years.min} to ${years.max}`);
  return value;
}

export function checkFilterValue(column: PlannedColumn, value: unknown): BoundValue {
  switch (column.storage) {
    case 'bool':
      if (typeof value !== 'boolean') throw invalid(column, 'true or false');
      return value;
    case 'int':
      return checkInteger(column, value, INT_RANGE);
    case 'int8':
      return checkInteger(column, value, INT8_RANGE);
    case 'decimal': {
      const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
      if (typeof text !== 'string') throw invalid(column, 'a number or a decimal string');
      return checkDecimal(column, text);
    }
    case 'float':
    case 'numeric_text': {
      const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
      const special = column.storage === 'float' && ['NaN', 'Infinity', '-Infinity'].includes(text as string);
      if (typeof text !== 'string' || !(plainDecimal(text) !== null || special)) throw invalid(column, 'a number or a decimal string');
      return text;
    }
    case 'date':
      return checkTemporal(column, value, YEARS.date);
    case 'timestamp':
    case 'timestamptz':
      return checkTemporal(column, value, YEARS.timestamp);
    default:
      if (typeof value !== 'string') throw invalid(column, 'a string');
      return value;
  }
}

/**
 * The DuckDB type a checked value is cast to before it meets the column.
 * A decimal gets the scale of whichever has more fractional digits, the
 * column or the value: casting 1.005 to the column's DECIMAL(12,2) would
 * round it to 1.01 and make `lte 1.005` match 1.01.
 */
export function bindType(column: PlannedColumn, value: BoundValue): string {
  if (column.storage === 'numeric_text') return 'DOUBLE';
  if (column.storage === 'decimal') {
    const fraction = String(value).split('.')[1] ?? '';
    return `DECIMAL(${MAX_PRECISION},${Math.max(scaleOf(column).scale, fraction.length)})`;
  }
  return column.duckType;
}
