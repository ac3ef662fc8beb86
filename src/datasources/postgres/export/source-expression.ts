/**
 * What PostgreSQL evaluates for each column inside the export's COPY
 * wrapper, so the text it streams already follows the contract's value
 * encoding where the column model stores text (bytea, arrays).
 */
import type { PlannedColumn } from '../../../columns/column-plan.ts';

/**
 * The expression PostgreSQL evaluates for a column inside the COPY wrapper,
 * over the positional alias `cN`. Most types go out as their text form;
 * bytea goes out as base64 and arrays as JSON whose elements follow the
 * value encoding (int8 and numeric elements as strings).
 */
export function sourceExpression(column: PlannedColumn, index: number, elementTypname: string | null): string {
  const ref = `c${index}`;
  if (column.storage === 'bytea') return `translate(encode(${ref}, 'base64'), E'\\n', '')`;
  if (column.storage === 'json_array') {
    const numericLike = ['int2', 'int4', 'float4', 'float8', 'bool', 'oid'];
    if (elementTypname === 'timestamptz' || elementTypname === 'timestamp') {
      return isoTimestamps(`to_json(${ref})::text`, elementTypname === 'timestamptz');
    }
    return elementTypname !== null && numericLike.includes(elementTypname)
      ? `to_json(${ref})::text`
      : `to_json(${ref}::text[])::text`;
  }
  return ref;
}

/**
 * PostgreSQL's JSON form of a timestamp drops trailing fractional zeros and
 * (in the export's UTC session) ends a timestamptz with +00:00, then a BC
 * one with " BC". Array elements are rewritten to the scalar encoding, six
 * fractional digits, a Z, the era last, in three passes: add a missing
 * fraction, pad it, cut it to six digits.
 */
function isoTimestamps(json: string, utc: boolean): string {
  const time = String.raw`T\d\d:\d\d:\d\d`;
  const end = utc ? String.raw`\+00:00( BC)?"` : '( BC)?"';
  const endText = utc ? String.raw`+00:00\2"` : String.raw`\2"`;
  const withFraction = `regexp_replace(${json}, ${escapedLiteral(`(${time})${end}`)}, ${escapedLiteral(String.raw`\1.` + endText)}, 'g')`;
  const padded = `regexp_replace(${withFraction}, ${escapedLiteral(String.raw`(${time}\.\d*)${end}`)}, ${escapedLiteral(String.raw`\1000000` + endText)}, 'g')`;
  return `regexp_replace(${padded}, ${escapedLiteral(String.raw`(${time}\.\d{6})\d*${end}`)}, ${escapedLiteral(String.raw`\1` + (utc ? 'Z' : '') + String.raw`\2"`)}, 'g')`;
}

/** A PostgreSQL E'' literal: backslashes mean the same whatever standard_conforming_strings says. */
function escapedLiteral(value: string): string {
  return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}
