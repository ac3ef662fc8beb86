/**
 * Numbers written as ASCII digits straight into a byte buffer, giving the
 * same text as JavaScript's String(number) (the shortest text that reads
 * back as the same double). Formatting a number through a string costs an
 * export of a few million numbers about as much as reading its rows; most
 * numbers are integers or decimals of a few places, and those are written
 * here digit by digit. Anything else (and -0) is left to the caller.
 */

const ZERO = 0x30;
const MINUS = 0x2d;
const DOT = 0x2e;

/** Integers below this are written by the digit loop, whose division by 10 is exact there. */
const DIGIT_LOOP_LIMIT = 1e15;
/** Decimals written here have at most this many places (String() writes 1e-7 as `1e-7`, 1e-6 as `0.000001`). */
const MAX_PLACES = 6;
const POWERS = [1, 10, 100, 1e3, 1e4, 1e5, 1e6];
/**
 * Decimals below this: then `value × 10^places` stays under 2^52, so a
 * double's spacing is smaller than 10^-places and at most one decimal of
 * that many places reads back as the value (which makes it the shortest).
 */
const DECIMAL_LIMIT = 1e9;

/** Writes the digits of `value`, a non-negative integer below DIGIT_LOOP_LIMIT, at `at`; returns where they end. */
function digits(out: Uint8Array, at: number, value: number): number {
  let length = 1;
  for (let power = 10; power <= value; power *= 10) length++;
  const end = at + length;
  for (let i = end - 1; i >= at; i--) {
    const rest = Math.floor(value / 10);
    out[i] = ZERO + (value - rest * 10);
    value = rest;
  }
  return end;
}

/** At most this many bytes: a sign, 15 digits, a point and 6 places, with room to spare. */
export const MAX_NUMBER_BYTES = 24;

/**
 * Writes `value` as String(value) would, when it is an integer or a decimal
 * of at most MAX_PLACES places small enough to be written here; returns
 * where the text ends, or -1 (nothing written) for any other number.
 * `out` must have MAX_NUMBER_BYTES of room at `at`.
 */
export function writeNumber(out: Uint8Array, at: number, value: number): number {
  let magnitude = value;
  if (value < 0) magnitude = -value;
  else if (value === 0) {
    // -0 is left to the caller: String(-0) is "0", which would lose its sign.
    if (Object.is(value, -0)) return -1;
    out[at] = ZERO;
    return at + 1;
  }
  if (!(magnitude < DIGIT_LOOP_LIMIT)) return -1;
  const whole = Math.floor(magnitude);
  if (whole === magnitude) {
    if (value < 0) out[at++] = MINUS;
    return digits(out, at, whole);
  }
  if (magnitude >= DECIMAL_LIMIT) return -1;
  for (let places = 1; places <= MAX_PLACES; places++) {
    const scale = POWERS[places]!;
    const scaled = Math.round(magnitude * scale);
    // The decimal scaled / 10^places reads back as exactly this double: it is the value's shortest text.
    if (scaled / scale !== magnitude) continue;
    if (value < 0) out[at++] = MINUS;
    at = digits(out, at, whole);
    out[at++] = DOT;
    // The fraction has exactly `places` digits, the last not 0 (fewer places would have matched first).
    let fraction = scaled - whole * scale;
    for (let i = at + places - 1; i >= at; i--) {
      const rest = Math.floor(fraction / 10);
      out[i] = ZERO + (fraction - rest * 10);
      fraction = rest;
    }
    return at + places;
  }
  return -1;
}
