/**
 * The contract's value encoding, written once as DuckDB SQL. Previews, page
 * reads and JSONL downloads all select `rowJsonExpression(...)`, so a value
 * looks the same wherever a caller meets it: int8 and numeric as exact
 * decimal strings, non-finite floats as strings, timestamps with all six
 * fractional digits (timestamptz in UTC with a Z), arrays as JSON arrays.
 */
import { quoteIdent, type StorageKind } from './column-plan.ts';

/**
 * The formatted text of a date or timestamp, written as PostgreSQL writes its
 * era: 44 BC is `0044-03-15 BC`, after the time when there is one. DuckDB's
 * %Y is the astronomical year (-43); year() on a TIMESTAMPTZ is the era's.
 */
function withEra(ref: string, duckType: string, afterYear: string): string {
  return (
    `CASE WHEN ${ref} < CAST('0001-01-01' AS ${duckType}) ` +
    `THEN printf('%04d', 1 - CAST(strftime(${ref}, '%Y') AS INTEGER)) || strftime(${ref}, '${afterYear}') || ' BC' ` +
    `ELSE strftime(${ref}, '%Y${afterYear}') END`
  );
}

function nonFinite(ref: string, duckType: string, finite: string): string {
  return (
    `CASE WHEN ${ref} = 'infinity'::${duckType} THEN '"infinity"'::JSON ` +
    `WHEN isinf(${ref}) THEN '"-infinity"'::JSON ELSE ${finite} END`
  );
}

/** A DuckDB expression giving the JSON value of one stored column. */
export function valueJsonExpression(storage: StorageKind, storageName: string): string {
  const ref = quoteIdent(storageName);
  switch (storage) {
    case 'bool':
    case 'int':
    case 'text':
    case 'bytea':
      return `to_json(${ref})`;
    case 'int8':
    case 'decimal':
    case 'numeric_text':
      return `to_json(CAST(${ref} AS VARCHAR))`;
    case 'float':
      return (
        `CASE WHEN isnan(${ref}) THEN '"NaN"'::JSON ` +
        `WHEN isinf(${ref}) AND ${ref} > 0 THEN '"Infinity"'::JSON ` +
        `WHEN isinf(${ref}) THEN '"-Infinity"'::JSON ELSE to_json(${ref}) END`
      );
    case 'date':
      return nonFinite(ref, 'DATE', `to_json(${withEra(ref, 'DATE', '-%m-%d')})`);
    case 'timestamp':
      return nonFinite(ref, 'TIMESTAMP', `to_json(${withEra(ref, 'TIMESTAMP', '-%m-%dT%H:%M:%S.%f')})`);
    case 'timestamptz':
      // The reading connection runs with TimeZone=UTC, so this is the UTC wall clock.
      return nonFinite(ref, 'TIMESTAMPTZ', `to_json(${withEra(ref, 'TIMESTAMPTZ', '-%m-%dT%H:%M:%S.%fZ')})`);
    case 'json_array':
      return `CAST(${ref} AS JSON)`;
  }
}

/**
 * One JSON array per row, in column order; parsed once per row on the JS
 * side. The array is joined as text: to_json(list_value(...)) parses every
 * value's JSON again to nest it, which for a 6 MB string needed over 200 MB
 * of DuckDB memory (the joined text about a third of that). A SQL NULL is
 * to_json's NULL, written `null`.
 */
export function rowJsonExpression(columns: { storage: StorageKind; storageName: string }[]): string {
  if (columns.length === 0) return `'[]'`;
  const values = columns.map((c) => `coalesce(CAST(${valueJsonExpression(c.storage, c.storageName)} AS VARCHAR), 'null')`);
  return `'[' || ${values.join(` || ',' || `)} || ']'`;
}
