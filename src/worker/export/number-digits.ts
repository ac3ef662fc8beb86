/**
 * Numbers written as ASCII digits straight into a byte buffer, giving the
 * same text as JavaScript's String(number) (the shortest text that reads
 * back as the same double). Formatting a number through a string costs an
 * export of a few million numbers about as much as reading its rows; so
 * integers below 10^15, decimals below 1 of a few places, and every
 * non-integer from 1 to 10^15 (up to 17 digits, long-decimal-digits.ts) are
 * written here digit by digit. Anything else (and -0) is left to the caller.
 */

import { writeLongFraction } from './long-decimal-digits.ts';

const ZERO = 0x30;
const MINUS = 0x2d;
const DOT = 0x2e;

/** Integers below this are written by the digit loop, whose division by 10 is exact there. */
const DIGIT_LOOP_LIMIT = 1e15;
/** Decimals below 1 written here have at most this many places (String() writes 1e-7 as `1e-7`, 1e-6 as `0.000001`). */
const MAX_PLACES = 6;
const POWERS = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14];

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

/** At most this many bytes: a sign, 17 digits and a point, with room to spare. */
export const MAX_NUMBER_BYTES = 24;

/** The digits of a non-negative integer below DIGIT_LOOP_LIMIT. */
function digitCount(value: number): number {
  let length = 1;
  for (let power = 10; power <= value; power *= 10) length++;
  return length;
}

/**
 * Writes `value` as String(value) would, when it is an integer, a decimal
 * of at most MAX_PLACES places below 1, or a non-integer from 1 to 10^15
 * (up to 17 digits); returns where the text ends, or -1 (nothing written)
 * for any other number (bytes past `at` may have been written). `out` must have MAX_NUMBER_BYTES of room at `at`.
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
  if (magnitude < 1) return writeSmallDecimal(out, at, value, magnitude);
  // At most 15 digits in all: the decimal scaled / 10^places is then an exact division, so it reads back
  // as this double exactly when it is one, and a double's spacing here is below 10^-places, so it is the
  // only one of that many places. A shorter one would be it with zeros dropped: one check covers them all.
  const wholeDigits = digitCount(whole);
  let places = 15 - wholeDigits;
  const scale = POWERS[places]!;
  const scaled = Math.round(magnitude * scale);
  if (value < 0) out[at++] = MINUS;
  if (scaled / scale === magnitude) {
    // Division, not %, which is a call for a double: rest / 10 is exact when it is an integer.
    let rest = scaled - whole * scale;
    for (let tenth = rest / 10; tenth === Math.floor(tenth); tenth = rest / 10) {
      rest = tenth;
      places--;
    }
    return fraction(out, digits(out, at, whole), rest, places);
  }
  // 16 or 17 digits (what was written is dropped by the caller when this is -1).
  return writeLongFraction(out, digits(out, at, whole), magnitude, whole, wholeDigits);
}

/** A decimal below 1 of at most MAX_PLACES places (String() writes 1e-7 as `1e-7`). */
function writeSmallDecimal(out: Uint8Array, at: number, value: number, magnitude: number): number {
  for (let places = 1; places <= MAX_PLACES; places++) {
    const scale = POWERS[places]!;
    const scaled = Math.round(magnitude * scale);
    // The decimal scaled / 10^places reads back as exactly this double: it is the value's shortest text.
    if (scaled / scale !== magnitude) continue;
    if (value < 0) out[at++] = MINUS;
    out[at++] = ZERO;
    return fraction(out, at, scaled, places);
  }
  return -1;
}

/** A dot and `places` digits of `value` (below 10^places, its last digit not 0). */
function fraction(out: Uint8Array, at: number, value: number, places: number): number {
  out[at++] = DOT;
  for (let i = at + places - 1; i >= at; i--) {
    const rest = Math.floor(value / 10);
    out[i] = ZERO + (value - rest * 10);
    value = rest;
  }
  return at + places;
}
