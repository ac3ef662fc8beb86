/**
 * How values are written on screen. Cell values are shown exactly as the API
 * sent them: int8 and numeric arrive as decimal strings and timestamps as
 * text, and neither is ever turned into a JS Number or Date here (either
 * would round or shift them). Counts and sizes the API sends as JSON numbers
 * are safe integers and get thousands separators.
 */
const COUNT = new Intl.NumberFormat('en-US');

export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? 'unknown' : COUNT.format(n);
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The text of one cell: null says NULL; strings stay as sent; arrays and objects as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const NUMERIC_TYPES = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);

/** Numbers line up on the right. */
export function isNumericType(type: string): boolean {
  return NUMERIC_TYPES.has(type);
}
