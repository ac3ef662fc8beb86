/**
 * One record of the CSV every driver's row source writes (row-source.ts):
 * as PostgreSQL's COPY (FORMAT csv) writes it, byte for byte, so a byte cap
 * measures the same on every engine. A value is quoted when it is empty,
 * holds a delimiter, quote or line break, or is `\.` alone on its line;
 * NULL is an unquoted empty field.
 */
const NEEDS_QUOTES = /[",\n\r]/;

export function csvRecord(row: (string | null)[]): string {
  const single = row.length === 1;
  let line = '';
  for (let i = 0; i < row.length; i++) {
    const value = row[i];
    if (i > 0) line += ',';
    if (value === null || value === undefined) continue;
    line += value === '' || NEEDS_QUOTES.test(value) || (single && value === '\\.') ? `"${value.replaceAll('"', '""')}"` : value;
  }
  return line + '\n';
}
