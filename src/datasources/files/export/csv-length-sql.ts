/**
 * The byte length of each row's CSV record (its newline included), as
 * csv-line-sql.ts would write it, computed without writing it: the export's
 * byte cap and part size count these bytes, and building every record's text
 * only to measure it took half of a large export's time. Most values'
 * lengths follow from the value alone (a date of years 1 to 9999 is always
 * 10 bytes, a text needs no quotes unless it holds a comma, quote or line
 * break, a double of the usual magnitudes is as long as its JSON number);
 * the rest are measured on the text csv-line-sql.ts spells out. Every
 * length is tested against the JavaScript record's bytes
 * (test/datasources/files/files-csv-lines.test.ts).
 */
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import { columnText, textNeedsQuotesSql } from './csv-line-sql.ts';

/**
 * The length of the non-NULL values of most rows, without their text:
 * `common` says which rows (a condition on the column as the statement gave
 * it, `c`), `length` what they measure. The other rows are measured on the
 * text csv-line-sql.ts spells out, whose DuckDB text (`s`) and converted
 * value the inner projection computes for them alone: a cast to text costs
 * more than the rest of the length, and DuckDB would make it for every row.
 */
interface QuickLength {
  common: string;
  length: string;
}

function quickLength(type: DuckDBType, c: string): QuickLength | null {
  const calendar = (literal: string, from: string, to: string, length: number): QuickLength => ({
    common: `${c} >= ${literal} '${from}' AND ${c} < ${literal} '${to}'`,
    length: String(length),
  });
  switch (type.typeId) {
    case DuckDBTypeId.DOUBLE:
      // Where csv-line-sql.ts writes the shortest digits plain. to_json writes the same digits (yyjson's shortest
      // round trip, plain in this range, ".0" on whole numbers as DuckDB's text has) at a third of a cast's cost.
      return {
        common: `abs(${c}) >= 1e-4 AND abs(${c}) < 1e15`,
        length: `strlen(CAST(to_json(${c}) AS VARCHAR)) - CASE WHEN ${c} = trunc(${c}) THEN 2 ELSE 0 END`,
      };
    case DuckDBTypeId.DATE:
      return calendar('DATE', '0001-01-01', '10000-01-01', 10);
    case DuckDBTypeId.TIMESTAMP:
      return calendar('TIMESTAMP', '0001-01-01', '10000-01-01', 26);
    case DuckDBTypeId.TIMESTAMP_TZ:
      // The same instants as csv-line-sql.ts's UTC wall clock of years 1 to 9999; "+00" follows the microseconds.
      return calendar('TIMESTAMPTZ', '0001-01-01 00:00:00+00', '10000-01-01 00:00:00+00', 29);
    default:
      return null;
  }
}

/** The length of a non-NULL value `v` of a type without a quick length, from the value alone; null to measure its text. */
function valueLength(type: DuckDBType, single: boolean, v: string): string | null {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return `CASE WHEN ${v} THEN 4 ELSE 5 END`;
    case DuckDBTypeId.VARCHAR:
      // Quoted, a value gains its two quotes and a second quote for each of its own.
      return `strlen(${v}) + CASE WHEN ${textNeedsQuotesSql(v, single)} THEN 2 + strlen(${v}) - strlen(replace(${v}, '"', '')) ELSE 0 END`;
    default:
      return null;
  }
}

/**
 * The statement that reads `sql`'s rows with one column more, last:
 * `sluice_csv_bytes` (DOUBLE), each row's CSV record length in bytes with its
 * newline. The statement's columns come first, as they are, renamed by
 * position to c0, c1, … (so duplicate or odd names in it do not matter).
 * Null when a column's type is not covered by csv-line-sql.ts.
 */
export function withCsvLengthSql(sql: string, types: DuckDBType[]): string | null {
  const single = types.length === 1;
  const texts = types.map((type) => columnText(type, single));
  if (texts.some((t) => t === null)) return null;
  const names = types.map((_, i) => `c${i}`);
  const inner: string[] = [...names];
  const lengths: string[] = [];
  texts.forEach((t, i) => {
    const c = `c${i}`;
    const v = `v${i}`;
    const s = `s${i}`;
    const converted = t!.inner?.(c) ?? c;
    const quick = quickLength(types[i]!, c);
    // Outside the common rows, the value as csv-line-sql.ts writes it, and DuckDB's text of it, once each (a CASE would
    // evaluate an expression again each time it names it); NULL on the common rows, which need neither.
    const rare = (expression: string) => (quick === null ? expression : `CASE WHEN ${quick.common} THEN NULL ELSE ${expression} END`);
    inner.push(`${rare(converted)} AS ${v}`);
    if (t!.text === true) inner.push(`${rare(`CAST(${converted} AS VARCHAR)`)} AS ${s}`);
    const measured = `strlen(${t!.value(v, t!.text === true ? s : `CAST(${v} AS VARCHAR)`)})`;
    const length = quick === null ? (valueLength(types[i]!, single, v) ?? measured) : `CASE WHEN ${quick.common} THEN ${quick.length} ELSE ${measured} END`;
    lengths.push(`CASE WHEN ${c} IS NULL THEN 0 ELSE ${length} END`);
  });
  // A comma between fields and the newline: as many as there are columns.
  const length = `CAST(${types.length} + ${lengths.join(' + ')} AS DOUBLE) AS sluice_csv_bytes`;
  // The statement on lines of its own: a trailing line comment in it ends before the closing parenthesis.
  return `SELECT ${names.join(', ')}, ${length} FROM (SELECT ${inner.join(', ')} FROM (\n${sql}\n) AS sluice_rows(${names.join(', ')})) AS sluice_values`;
}
