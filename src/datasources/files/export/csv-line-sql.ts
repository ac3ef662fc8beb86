/**
 * The export's CSV records spelled out in DuckDB's SQL: one expression per
 * row that yields the record value-text.ts and csvRecord would write in
 * JavaScript, byte for byte. The export no longer writes these records: its
 * rows go to Parquet as DuckDB chunks, and the byte cap counts each
 * record's length, which csv-length-sql.ts computes from these expressions
 * (from the value alone where it can). The whole record (csvLinesSql) is
 * what the tests compare with JavaScript's, value by value
 * (test/datasources/files/files-csv-lines.test.ts).
 *
 * Only the types whose text is spelled out here take that path (integers,
 * BOOLEAN, DOUBLE, DECIMAL, VARCHAR, DATE, TIMESTAMP and TIMESTAMPTZ); a
 * result with any other column (FLOAT, BLOB, TIME, nested values...) is
 * formatted in JavaScript as before.
 */
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';

/** DuckDB's text is already the export's text: the integers and DECIMAL (its scale kept, as DuckDBDecimalValue writes it). */
const AS_CAST = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.DECIMAL,
]);

/**
 * A DOUBLE as JavaScript's String(number) writes it (value-text.ts): DuckDB
 * writes the same shortest digits, but plain only from 1e-4 to 1e16 (with
 * ".0" on whole numbers) and exponents padded to two digits; JavaScript
 * writes plain from 1e-6 to 1e21 and unpadded exponents.
 */
function doubleSql(c: string, s: string): string {
  const exponent = `CAST(split_part(${s}, 'e', 2) AS INTEGER)`;
  const sign = `CASE WHEN ${c} < 0 THEN '-' ELSE '' END`;
  const digits = `replace(ltrim(split_part(${s}, 'e', 1), '-'), '.', '')`;
  return (
    // Most doubles first, cheaply: where both write plain digits, whole numbers below 2^53 as integers.
    `CASE WHEN abs(${c}) >= 1e-4 AND abs(${c}) < 1e15 THEN CASE WHEN ${c} = trunc(${c}) THEN CAST(CAST(${c} AS BIGINT) AS VARCHAR) ELSE ${s} END ` +
    `WHEN isnan(${c}) THEN 'NaN' ` +
    `WHEN isinf(${c}) THEN CASE WHEN ${c} > 0 THEN 'Infinity' ELSE '-Infinity' END ` +
    `WHEN ${c} = 0 THEN CASE WHEN starts_with(${s}, '-') THEN '-0' ELSE '0' END ` +
    `WHEN NOT contains(${s}, 'e') THEN CASE WHEN suffix(${s}, '.0') THEN left(${s}, length(${s}) - 2) ELSE ${s} END ` +
    `WHEN ${exponent} >= 21 OR ${exponent} <= -7 THEN regexp_replace(${s}, 'e([+-])0', 'e\\1') ` +
    `WHEN ${exponent} >= 0 THEN ${sign} || ${digits} || repeat('0', ${exponent} - length(${digits}) + 1) ` +
    `ELSE ${sign} || '0.' || repeat('0', -${exponent} - 1) || ${digits} END`
  );
}

/**
 * A date or timestamp as calendar-text.ts writes it: ISO, microseconds, a
 * BC year counted from 1 BC with ` BC` last (DuckDB's year() is
 * astronomical: 44 BC is -43), `infinity` and `-infinity`. `time` is the
 * strftime format after the day, `zone` what follows the time.
 */
function calendarSql(c: string, s: string, time: string, zone: string, type: 'DATE' | 'TIMESTAMP'): string {
  const bcYear = `lpad(CAST(1 - year(${c}) AS VARCHAR), 4, '0')`;
  // Years 1 to 9999 first, cheaply: DuckDB's own text with the microseconds it leaves off put back.
  const common = type === 'DATE' ? s : `rpad(CASE WHEN length(${s}) = 19 THEN ${s} || '.' ELSE ${s} END, 26, '0')`;
  return (
    `CASE WHEN ${c} >= ${type} '0001-01-01' AND ${c} < ${type} '10000-01-01' THEN ${common} || '${zone}' ` +
    `WHEN NOT isfinite(${c}) THEN CASE WHEN starts_with(${s}, '-') THEN '-infinity' ELSE 'infinity' END ` +
    `WHEN year(${c}) <= 0 THEN ${bcYear} || strftime(${c}, '-%m-%d${time}') || '${zone} BC' ` +
    `ELSE strftime(${c}, '%Y-%m-%d${time}') || '${zone}' END`
  );
}

/** Quoted as PostgreSQL's COPY quotes: when empty, holding a delimiter, quote or line break, or `\.` alone on its line. */
export function textNeedsQuotesSql(c: string, single: boolean): string {
  const needsQuotes = [`${c} = ''`, `contains(${c}, '"')`, `contains(${c}, ',')`, `contains(${c}, chr(10))`, `contains(${c}, chr(13))`];
  if (single) needsQuotes.push(`${c} = '\\.'`);
  return needsQuotes.join(' OR ');
}

function textSql(c: string, single: boolean): string {
  return `CASE WHEN ${textNeedsQuotesSql(c, single)} THEN '"' || replace(${c}, '"', '""') || '"' ELSE ${c} END`;
}

/**
 * How one column becomes text: `value` is the non-NULL value's text, from
 * `c` (the column, or what `inner` made of it) and `s` (with `text`, DuckDB's
 * own text of `c`, computed once in an inner projection: DuckDB evaluates
 * an expression again each time a CASE names it).
 */
export interface ColumnText {
  inner?: (c: string) => string;
  text?: boolean;
  value: (c: string, s: string) => string;
}

/** How a column of `type` becomes text; null when this type stays with JavaScript. */
export function columnText(type: DuckDBType, single: boolean): ColumnText | null {
  if (AS_CAST.has(type.typeId)) return { value: (c) => `CAST(${c} AS VARCHAR)` };
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return { value: (c) => `CASE WHEN ${c} THEN 'true' ELSE 'false' END` };
    case DuckDBTypeId.DOUBLE:
      return { text: true, value: doubleSql };
    case DuckDBTypeId.VARCHAR:
      return { value: (c) => textSql(c, single) };
    case DuckDBTypeId.DATE:
      return { text: true, value: (c, s) => calendarSql(c, s, '', '', 'DATE') };
    case DuckDBTypeId.TIMESTAMP:
      return { text: true, value: (c, s) => calendarSql(c, s, ' %H:%M:%S.%f', '', 'TIMESTAMP') };
    case DuckDBTypeId.TIMESTAMP_TZ:
      // As the TIMESTAMP of the same microseconds, i.e. in UTC: DuckDB's year() of a TIMESTAMPTZ counts the
      // era's years (1 BC is 1), not astronomically, and its cast to TIMESTAMP goes through the time-zone library.
      return { inner: (c) => `CASE WHEN isfinite(${c}) THEN make_timestamp(epoch_us(${c})) ELSE CAST(${c} AS TIMESTAMP) END`, text: true, value: (c, s) => calendarSql(c, s, ' %H:%M:%S.%f', '+00', 'TIMESTAMP') };
    default:
      return null;
  }
}

/**
 * The statement that reads `sql`'s rows as CSV records (without their
 * newline), one VARCHAR column `line`; null when a column's type is not
 * covered here. The statement's columns are renamed by position, so
 * duplicate or odd names in it do not matter; a NULL is an empty field.
 */
export function csvLinesSql(sql: string, types: DuckDBType[]): string | null {
  const texts = types.map((type) => columnText(type, types.length === 1));
  if (texts.some((t) => t === null)) return null;
  const inner: string[] = [];
  const fields: string[] = [];
  texts.forEach((t, i) => {
    const value = t!.inner?.(`c${i}`) ?? `c${i}`;
    inner.push(`${value} AS v${i}`);
    if (t!.text === true) inner.push(`CAST(${value} AS VARCHAR) AS s${i}`);
    fields.push(`CASE WHEN v${i} IS NULL THEN '' ELSE ${t!.value(`v${i}`, `s${i}`)} END`);
  });
  const names = types.map((_, i) => `c${i}`).join(', ');
  // The statement on lines of its own: a trailing line comment in it ends before the closing parenthesis.
  return (
    `SELECT concat(${fields.join(", ',', ")}) AS line FROM (SELECT ${inner.join(', ')} ` +
    `FROM (\n${sql}\n) AS sluice_rows(${names})) AS sluice_values`
  );
}
