/**
 * The DuckDB side of an export: how a CSV part written from PostgreSQL's
 * COPY stream is read back with the column plan's exact types. Every option
 * is spelled out (no sniffing), so a value is never guessed: an unquoted
 * empty field is NULL and a quoted empty field is the empty string.
 */
import { quoteIdent, quoteLiteral, type PlannedColumn } from '../../columns/column-plan.ts';

/**
 * The reader's buffer. DuckDB's default is 32 MB (16 × its 2 MB line limit),
 * held whole while a part converts; 4 MiB keeps an export's peak about 40 MB
 * lower at the same speed (A/B in bench/RESULTS.md). A part with a longer record gets a buffer that holds
 * it: the reader refuses a line longer than its max_line_size, and its buffer
 * must be at least that long.
 */
const BUFFER_BYTES = 4 * 1024 * 1024;

/** What the part writer learned about a part's records while writing them. */
export interface PartShape {
  /** No record is longer than this many bytes. */
  longestRow: number;
  /** Some value may be a BC date or timestamp (the bytes hold ` BC"`). */
  mayHoldBc: boolean;
}

/**
 * What a BC value holds in PostgreSQL's CSV: ISO DateStyle writes the era
 * last. Text that happens to hold it too only sends the part down the slower,
 * exact path.
 */
export const BC_MARK = Buffer.from(' BC');

const DATE_LIKE = new Set(['date', 'timestamp', 'timestamptz']);

export function readCsvSql(file: string, columns: PlannedColumn[], shape: PartShape): string {
  // A part that may hold BC values reads its date columns as text and converts them itself (bcAware).
  const asText = (c: PlannedColumn) => shape.mayHoldBc && DATE_LIKE.has(c.storage);
  const spec = columns.map((c, i) => `${quoteLiteral(`c${i}`)}: ${quoteLiteral(asText(c) ? 'VARCHAR' : c.duckType)}`).join(', ');
  const select = columns.map((c, i) => `${asText(c) ? bcAware(`c${i}`, c.duckType) : `c${i}`} AS ${quoteIdent(c.storageName)}`).join(', ');
  const maxLine = Math.max(BUFFER_BYTES, Math.ceil(shape.longestRow) + 1);
  return (
    `SELECT ${select} FROM read_csv(${quoteLiteral(file)}, header = false, auto_detect = false, ` +
    `delim = ',', quote = '"', escape = '"', new_line = '\\n', allow_quoted_nulls = false, ` +
    `strict_mode = true, max_line_size = ${maxLine}, buffer_size = ${maxLine}, columns = {${spec}})`
  );
}

/**
 * PostgreSQL writes 44 BC as `0044-03-15 BC` (with the time, if any, before
 * the era). DuckDB's DATE parser drops that suffix without a word, turning the
 * date into 44 AD, and its TIMESTAMP parser refuses it; both read the
 * astronomical year, where 1 BC is year 0 and 44 BC is year -43.
 */
function bcAware(ref: string, duckType: string): string {
  const year = `CAST(split_part(${ref}, '-', 1) AS INTEGER)`;
  const rest = `substr(${ref}, strpos(${ref}, '-'), length(${ref}) - strpos(${ref}, '-') - 2)`;
  const astronomical = `CASE WHEN ${year} = 1 THEN '0000' ELSE printf('-%04d', ${year} - 1) END || ${rest}`;
  return `CASE WHEN suffix(${ref}, ' BC') THEN CAST(${astronomical} AS ${duckType}) ELSE CAST(${ref} AS ${duckType}) END`;
}

/** Row groups of 30,000 rows: DuckDB buffers a whole group while writing, ~45 MB less than its default at the same speed. */
export function csvToParquetSql(csvFile: string, parquetFile: string, columns: PlannedColumn[], shape: PartShape): string {
  return `COPY (${readCsvSql(csvFile, columns, shape)}) TO ${quoteLiteral(parquetFile)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 30000)`;
}
