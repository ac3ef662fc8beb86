/**
 * The byte length of each row's CSV record (its newline included), as
 * csv-line-sql.ts would write it, computed without writing it: the export's
 * byte cap and part size count these bytes, and building every record's text
 * only to measure it took half of a large export's time. Most values'
 * lengths follow from the value alone (a date of years 1 to 9999 is always
 * 10 bytes, a text needs no quotes unless it holds a comma, quote or line
 * break); the rest are measured on the text csv-line-sql.ts spells out, so
 * both can never disagree. Tested against the JavaScript records' bytes
 * (test/datasources/files/files-csv-lines.test.ts).
 */
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import { columnText, textNeedsQuotesSql } from './csv-line-sql.ts';

/** The length of a non-NULL value `c` (`s`: DuckDB's text of it, for a DOUBLE), or null to measure its text. */
function quickLength(type: DuckDBType, single: boolean, c: string, s: string, text: string): string | null {
  const calendar = (literal: string, common: number) =>
    `CASE WHEN ${c} >= ${literal} '0001-01-01' AND ${c} < ${literal} '10000-01-01' THEN ${common} ELSE strlen(${text}) END`;
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return `CASE WHEN ${c} THEN 4 ELSE 5 END`;
    case DuckDBTypeId.VARCHAR:
      // Quoted, a value gains its two quotes and a second quote for each of its own.
      return `strlen(${c}) + CASE WHEN ${textNeedsQuotesSql(c, single)} THEN 2 + strlen(${c}) - strlen(replace(${c}, '"', '')) ELSE 0 END`;
    case DuckDBTypeId.DOUBLE:
      // Where csv-line-sql.ts writes DuckDB's own text, less the ".0" DuckDB puts on whole numbers.
      return `CASE WHEN abs(${c}) >= 1e-4 AND abs(${c}) < 1e15 THEN strlen(${s}) - CASE WHEN ${c} = trunc(${c}) THEN 2 ELSE 0 END ELSE strlen(${text}) END`;
    case DuckDBTypeId.DATE:
      return calendar('DATE', 10);
    case DuckDBTypeId.TIMESTAMP:
      return calendar('TIMESTAMP', 26);
    case DuckDBTypeId.TIMESTAMP_TZ:
      // csv-line-sql.ts's inner projection made it the TIMESTAMP of the same microseconds; "+00" follows.
      return calendar('TIMESTAMP', 29);
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
    const value = t!.inner?.(`c${i}`) ?? `c${i}`;
    inner.push(`${value} AS v${i}`);
    const c = `v${i}`;
    const double = types[i]!.typeId === DuckDBTypeId.DOUBLE;
    // DuckDB's text of the value is computed once, in the inner projection, only for the type whose quick length needs it.
    if (double) inner.push(`CAST(${value} AS VARCHAR) AS s${i}`);
    const s = double ? `s${i}` : `CAST(${c} AS VARCHAR)`;
    const text = t!.value(c, s);
    lengths.push(`CASE WHEN ${c} IS NULL THEN 0 ELSE ${quickLength(types[i]!, single, c, s, text) ?? `strlen(${text})`} END`);
  });
  // A comma between fields and the newline: as many as there are columns.
  const length = `CAST(${types.length} + ${lengths.join(' + ')} AS DOUBLE) AS sluice_csv_bytes`;
  // The statement on lines of its own: a trailing line comment in it ends before the closing parenthesis.
  return `SELECT ${names.join(', ')}, ${length} FROM (SELECT ${inner.join(', ')} FROM (\n${sql}\n) AS sluice_rows(${names.join(', ')})) AS sluice_values`;
}
