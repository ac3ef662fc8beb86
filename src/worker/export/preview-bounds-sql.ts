/**
 * The preview's size bounds, as one DuckDB statement over the part being
 * written, so a long value is cut before it ever reaches JavaScript: each
 * cell whose value is longer than the cell bound is cut to it (and its
 * whole length reported), and the rows are kept while their JSON, and the
 * cutCells entries they add, fit in the byte budget. Only whole rows are
 * kept: the preview ends at a row boundary.
 *
 * A value's length is counted in characters (Unicode code points) of the
 * value a caller meets: a string's own characters (text, and the strings
 * json, bytea, int8 and the rest are encoded as), or the JSON text of any
 * other value (an array); SQL NULL is never cut. A cut string stays a string of its first
 * characters; a cut array becomes a string of the first characters of its
 * JSON text. cutCells lists every cut cell.
 */
import type { PlannedColumn } from '../../columns/column-plan.ts';
import { valueJsonExpression } from '../../columns/value-encoding.ts';

export interface PreviewBounds {
  /** Bytes (UTF-8) the rows and their cutCells entries may take in the preview's JSON. */
  bytes: number;
  /** The longest value a cell shows, in characters. */
  cellChars: number;
}

/**
 * Selects the first `first` rows of `source` within the bounds, in order:
 * `row_json` (the row's JSON array text, cut cells cut) then, per column i,
 * `cut_i` (the whole value's length when the cell was cut, else NULL).
 */
export function boundedPreviewSql(source: string, columns: PlannedColumn[], first: number, bounds: PreviewBounds): string {
  const c = Math.floor(bounds.cellChars);
  const idx = columns.map((_, i) => i);
  // 1. Each value's JSON text, once; the row number keeps the source's order.
  const encoded = idx.map((i) => `coalesce(CAST(${valueJsonExpression(columns[i]!.storage, columns[i]!.storageName)} AS VARCHAR), 'null') AS j${i}`);
  // 2. The whole length, measured only when the JSON text is long enough to be over the bound
  //    (a string's characters are never more than its JSON text's, less the quotes).
  const isString = (i: number) => `left(j${i}, 1) = '"'`;
  const sized = idx.map(
    (i) => `j${i}, CASE WHEN length(j${i}) <= ${c} OR j${i} = 'null' THEN NULL WHEN ${isString(i)} THEN length(json_extract_string(j${i}, '$')) ELSE length(j${i}) END AS l${i}`,
  );
  // 3. The cut value, and the length of what was cut.
  const cutValue = (i: number) =>
    `CASE WHEN l${i} > ${c} THEN CAST(to_json(left(CASE WHEN ${isString(i)} THEN json_extract_string(j${i}, '$') ELSE j${i} END, ${c})) AS VARCHAR) ELSE j${i} END`;
  const rowJson = columns.length === 0 ? `'[]'` : `'[' || ${idx.map(cutValue).join(` || ',' || `)} || ']'`;
  const cutOf = idx.map((i) => `CASE WHEN l${i} > ${c} THEN l${i} END AS cut_${i}`);
  // 4. What each row adds to the preview's JSON: its text and a comma, and each cutCells entry and a comma.
  const entry = (i: number) => `CASE WHEN cut_${i} IS NULL THEN 0 ELSE strlen('{"row":' || (n - 1) || ',"column":${i},"chars":' || cut_${i} || '}') + 1 END`;
  const cost = ['strlen(row_json) + 1', ...idx.map(entry)].join(' + ');
  const cuts = idx.map((i) => `cut_${i}`);
  return (
    `SELECT ${['row_json', ...cuts].join(', ')} FROM (` +
    `SELECT ${['n', 'row_json', ...cuts].join(', ')}, sum(${cost}) OVER (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto FROM (` +
    `SELECT n, ${rowJson} AS row_json, ${['NULL AS none', ...cutOf].join(', ')} FROM (` +
    `SELECT n, ${['NULL AS none', ...sized].join(', ')} FROM (` +
    `SELECT row_number() OVER () AS n, ${['NULL AS none', ...encoded].join(', ')} FROM (${source} LIMIT ${Math.floor(first)})` +
    `)))) WHERE upto <= ${Math.max(0, Math.floor(bounds.bytes))} ORDER BY n`
  );
}
