/**
 * The DuckDB side of an export: how a CSV part written from PostgreSQL's
 * COPY stream is read back with the column plan's exact types. Every option
 * is spelled out (no sniffing), so a value is never guessed: an unquoted
 * empty field is NULL and a quoted empty field is the empty string.
 */
import { quoteIdent, quoteLiteral, type PlannedColumn } from './column-plan.ts';

/**
 * The reader's buffer. DuckDB's default is 32 MB (16 × its 2 MB line limit),
 * held whole while a part converts; 4 MiB is about 55 MB less resident
 * memory per conversion. A part with a longer record gets a buffer that holds
 * it: the reader refuses a line longer than its max_line_size, and its buffer
 * must be at least that long.
 */
const BUFFER_BYTES = 4 * 1024 * 1024;

/** `longestRow` bounds the length in bytes of every record in the file. */
export function readCsvSql(file: string, columns: PlannedColumn[], longestRow: number): string {
  const spec = columns.map((c, i) => `${quoteLiteral(`c${i}`)}: ${quoteLiteral(c.duckType)}`).join(', ');
  const select = columns.map((c, i) => `c${i} AS ${quoteIdent(c.storageName)}`).join(', ');
  const maxLine = Math.max(BUFFER_BYTES, Math.ceil(longestRow) + 1);
  return (
    `SELECT ${select} FROM read_csv(${quoteLiteral(file)}, header = false, auto_detect = false, ` +
    `delim = ',', quote = '"', escape = '"', new_line = '\\n', allow_quoted_nulls = false, ` +
    `strict_mode = true, max_line_size = ${maxLine}, buffer_size = ${maxLine}, columns = {${spec}})`
  );
}

/** Row groups of 30,000 rows: DuckDB buffers a whole group while writing, ~45 MB less than its default at the same speed. */
export function csvToParquetSql(csvFile: string, parquetFile: string, columns: PlannedColumn[], longestRow: number): string {
  return `COPY (${readCsvSql(csvFile, columns, longestRow)}) TO ${quoteLiteral(parquetFile)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 30000)`;
}
