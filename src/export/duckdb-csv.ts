/**
 * The DuckDB side of an export: how a CSV part written from PostgreSQL's
 * COPY stream is read back with the column plan's exact types. Every option
 * is spelled out (no sniffing), so a value is never guessed: an unquoted
 * empty field is NULL and a quoted empty field is the empty string.
 */
import { quoteIdent, quoteLiteral, type PlannedColumn } from './column-plan.ts';

export function readCsvSql(file: string, columns: PlannedColumn[]): string {
  const spec = columns.map((c, i) => `${quoteLiteral(`c${i}`)}: ${quoteLiteral(c.duckType)}`).join(', ');
  const select = columns.map((c, i) => `c${i} AS ${quoteIdent(c.storageName)}`).join(', ');
  return (
    `SELECT ${select} FROM read_csv(${quoteLiteral(file)}, header = false, auto_detect = false, ` +
    `delim = ',', quote = '"', escape = '"', new_line = '\\n', allow_quoted_nulls = false, ` +
    `strict_mode = true, columns = {${spec}})`
  );
}

/** Row groups of 30,000 rows: DuckDB buffers a whole group while writing, ~45 MB less than its default at the same speed. */
export function csvToParquetSql(csvFile: string, parquetFile: string, columns: PlannedColumn[]): string {
  return `COPY (${readCsvSql(csvFile, columns)}) TO ${quoteLiteral(parquetFile)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 30000)`;
}
