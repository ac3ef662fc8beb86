/**
 * The text String() gives a double of 16 or 17 significant digits between 1
 * and 10^15 that is not an integer (n × 1.000001 is one in two; half of a
 * REAL column of measurements may be), written straight into bytes. String()
 * costs such a number about as much as reading its row; here its fraction's
 * digits are worked out exactly in doubles, and the 16- or 17-digit decimal
 * is chosen as ECMAScript's Number::toString chooses it: the fewest digits
 * that read back as the value, the closest of those. Anything this cannot
 * decide exactly (a tie, a carry into the whole part) is left to the caller.
 */

const ZERO = 0x30;
const DOT = 0x2e;
const TWO_26 = 2 ** 26;
/** 10^i, each exact (built by multiplying, never by a power function). */
const POWERS: number[] = [1];
for (let i = 1; i <= 16; i++) POWERS.push(POWERS[i - 1]! * 10);
/** 2^-i, each exact. */
const HALVES: number[] = [1];
for (let i = 1; i <= 64; i++) HALVES.push(HALVES[i - 1]! / 2);

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
/** The index of the word holding a double's sign and exponent, by the platform's byte order. */
const HIGH = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f ? 1 : 0;

/** The spacing of doubles at `value` (1 ≤ value < 2^53, so 2^-52 to 2^-1). */
function ulpOf(value: number): number {
  bits[0] = value;
  const exponent = (words[HIGH]! >>> 20) & 0x7ff;
  return HALVES[1075 - exponent]!;
}

/** The fraction's digits, as two runs of at most 8 each, and what is left of it (exact). */
let first = 0;
let second = 0;
let left = 0;

/**
 * The next `count` (at most 8) decimal digits of `fraction` (exact, in
 * [0, 1)) as an integer; `left` gets the fraction past them. The fraction is
 * split at 2^-26, so each half times 10^count is an exact product.
 */
function nextDigits(fraction: number, count: number): number {
  const high = Math.floor(fraction * TWO_26) / TWO_26;
  const low = fraction - high;
  const scale = POWERS[count]!;
  const highScaled = high * scale;
  const lowScaled = low * scale;
  const highWhole = Math.floor(highScaled);
  const lowWhole = Math.floor(lowScaled);
  let digits = highWhole + lowWhole;
  let rest = highScaled - highWhole + (lowScaled - lowWhole);
  if (rest >= 1) {
    digits++;
    rest -= 1;
  }
  left = rest;
  return digits;
}

/** Writes `value` (an integer below 10^count) as exactly `count` digits, zeros first. */
function padded(out: Uint8Array, at: number, value: number, count: number): number {
  for (let i = at + count - 1; i >= at; i--) {
    const rest = Math.floor(value / 10);
    out[i] = ZERO + (value - rest * 10);
    value = rest;
  }
  return at + count;
}

/**
 * Writes the fraction of `magnitude` (non-integer, 1 ≤ magnitude < 10^15,
 * whose whole part `whole` of `wholeDigits` digits is already written, and
 * which no decimal of fewer than 16 digits reads back as) from `at`: the dot
 * and the digits. Returns where they end, or -1 (nothing to keep) when the
 * choice is not certain here.
 */
export function writeLongFraction(out: Uint8Array, at: number, magnitude: number, whole: number, wholeDigits: number): number {
  const places = 17 - wholeDigits;
  const firstCount = places > 8 ? 8 : places;
  const secondCount = places - firstCount;
  first = nextDigits(magnitude - whole, firstCount);
  second = secondCount > 0 ? nextDigits(left, secondCount) : 0;
  // The exact value is whole . first second + left × 10^-places; `last` is the 17th digit.
  const last = secondCount > 0 ? second % 10 : first % 10;
  // In units of the 17th digit, a 16-digit decimal reads back when it is nearer than half a spacing of doubles.
  const halfSpacing = (ulpOf(magnitude) / 2) * POWERS[places]!;
  let keep: number;
  let up: boolean;
  if (last > 5 || (last === 5 && left > 0)) {
    // Rounded up, the 16-digit decimal is 10 - last - left units away.
    const margin = 10 - last - halfSpacing;
    if (left === margin) return -1;
    keep = left > margin ? 16 : 17;
    up = keep === 16 || left > 0.5;
  } else if (last < 5) {
    const margin = halfSpacing - last;
    if (left === margin) return -1;
    keep = left < margin ? 16 : 17;
    up = keep === 17 && left > 0.5;
  } else {
    // Exactly half way between two 16-digit decimals.
    return -1;
  }
  if (keep === 17 && left === 0.5) return -1;
  let firstKept = first;
  let secondKept = second;
  let firstPlaces = firstCount;
  let secondPlaces = secondCount;
  if (keep === 16) {
    if (secondPlaces > 0) {
      secondKept = (second - last) / 10;
      secondPlaces--;
    } else {
      firstKept = (first - last) / 10;
      firstPlaces--;
    }
  }
  if (up) {
    if (secondPlaces > 0 && ++secondKept === POWERS[secondPlaces]) {
      secondKept = 0;
      firstKept++;
    } else if (secondPlaces === 0) {
      firstKept++;
    }
    // A carry into the whole part: left to the caller.
    if (firstKept === POWERS[firstPlaces]) return -1;
  }
  // A last digit 0 would mean fewer digits read back, which the caller ruled out: not certain, so left out.
  if ((secondPlaces > 0 ? secondKept : firstKept) % 10 === 0) return -1;
  out[at++] = DOT;
  at = padded(out, at, firstKept, firstPlaces);
  return secondPlaces > 0 ? padded(out, at, secondKept, secondPlaces) : at;
}
