/**
 * A value as the export's CSV carries it (row-source.ts in the worker: the
 * CSV PostgreSQL's COPY writes), written from the bytes the server sent for
 * it (the text protocol's own text, so nothing is rounded on the way)
 * straight into the chunk being built. A value the column model cannot
 * hold exactly fails the query naming the column: MySQL's zero dates
 * ('0000-00-00', or a zero month or day) are no date at all, and a BIT(1)
 * holds only 0 or 1.
 */
import { SluiceError } from '../../errors.ts';
import type { CsvChunkWriter } from '../../worker/export/csv-chunk-writer.ts';
import type { ValueReader } from './column-types.ts';

const ZERO = 0x30;
const ONE = 0x31;
/** The UTC offset a TIMESTAMP's text gets: the session runs in UTC, so its text is the UTC wall clock. */
const UTC = Buffer.from('+00');

function zeroDate(column: string, value: string): SluiceError {
  return new SluiceError(
    'SQL_ERROR',
    `Column "${column}" holds the zero date ${value}, which is not a date and cannot be stored as one; select CAST(\`${column}\` AS CHAR) to read it as text, or NULLIF(\`${column}\`, '0000-00-00') to read it as NULL.`,
    { column, reason: 'ZERO_DATE' },
  );
}

/** Two ASCII zeros at `at` (within the value). */
function zeros(bytes: Uint8Array, at: number, end: number, count: number): boolean {
  if (at + count > end) return false;
  for (let i = at; i < at + count; i++) if (bytes[i] !== ZERO) return false;
  return true;
}

/** A date with a zero year, month or day (YYYY-MM-DD…): MySQL stores these, no calendar has them. */
function isZeroDate(bytes: Uint8Array, start: number, end: number): boolean {
  return zeros(bytes, start, end, 4) || zeros(bytes, start + 5, end, 2) || zeros(bytes, start + 8, end, 2);
}

function bitNumber(bytes: Uint8Array, start: number, end: number): string {
  let value = 0n;
  for (let i = start; i < end; i++) value = (value << 8n) | BigInt(bytes[i]!);
  return value.toString();
}

/**
 * A BIT(1) arrives as one byte, 0 or 1; from JSON_TABLE MariaDB sends its
 * text, '0' or '1'. Either way the value is unambiguous.
 */
function bitBool(column: string, bytes: Uint8Array, start: number, end: number): string {
  const byte = end - start === 1 ? bytes[start] : undefined;
  if (byte === 0 || byte === ZERO) return 'f';
  if (byte === 1 || byte === ONE) return 't';
  throw new SluiceError('SQL_ERROR', `Column "${column}" is a BIT(1) that holds neither 0 nor 1.`, { column });
}

/** Writes the value in `bytes[start, end)` (not NULL) as the column model's storage reads it. */
export function writeValue(out: CsvChunkWriter, reader: ValueReader, column: string, bytes: Buffer, start: number, end: number): void {
  switch (reader) {
    case 'text':
      return out.text(bytes, start, end);
    case 'digits':
      return out.plain(bytes, start, end);
    case 'base64':
      return out.ascii(bytes.toString('base64', start, end));
    case 'bit-bool':
      return out.ascii(bitBool(column, bytes, start, end));
    case 'bit-number':
      return out.ascii(bitNumber(bytes, start, end));
    case 'date':
    case 'datetime':
    case 'timestamp':
      if (isZeroDate(bytes, start, end)) throw zeroDate(column, bytes.toString('latin1', start, end));
      return reader === 'timestamp' ? out.plainJoined(bytes, start, end, UTC) : out.plain(bytes, start, end);
  }
}
