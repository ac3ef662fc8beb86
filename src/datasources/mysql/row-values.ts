/**
 * A row as the export's CSV carries it (row-source.ts in the worker: the
 * CSV PostgreSQL's COPY writes), from the bytes the server sent for each
 * value (the text protocol's own text, so nothing is rounded on the way).
 * A value the column model cannot hold exactly fails the query naming the
 * column: MySQL's zero dates ('0000-00-00', or a zero month or day) are no
 * date at all, and a BIT(1) holds only 0 or 1.
 */
import { SluiceError } from '../../errors.ts';
import type { ValueReader } from './column-types.ts';

function zeroDate(column: string, value: string): SluiceError {
  return new SluiceError(
    'SQL_ERROR',
    `Column "${column}" holds the zero date ${value}, which is not a date and cannot be stored as one; select CAST(\`${column}\` AS CHAR) to read it as text, or NULLIF(\`${column}\`, '0000-00-00') to read it as NULL.`,
    { column, reason: 'ZERO_DATE' },
  );
}

/** A date with a zero year, month or day: MySQL stores these, no calendar has them. */
function isZeroDate(text: string): boolean {
  return text.startsWith('0000') || text.slice(5, 7) === '00' || text.slice(8, 10) === '00';
}

function bitNumber(bytes: Buffer): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value.toString();
}

/**
 * A BIT(1) arrives as one byte, 0 or 1; from JSON_TABLE MariaDB sends its
 * text, '0' or '1'. Either way the value is unambiguous.
 */
function bitBool(column: string, bytes: Buffer): string {
  const byte = bytes.length === 1 ? bytes[0] : undefined;
  if (byte === 0 || byte === 0x30) return 'f';
  if (byte === 1 || byte === 0x31) return 't';
  throw new SluiceError('SQL_ERROR', `Column "${column}" is a BIT(1) that holds neither 0 nor 1.`, { column });
}

/** The text of one value in the column model's storage, or null for SQL NULL. */
export function valueText(reader: ValueReader, column: string, bytes: Buffer | null): string | null {
  if (bytes === null) return null;
  switch (reader) {
    case 'text':
      return bytes.toString('utf8');
    case 'base64':
      return bytes.toString('base64');
    case 'bit-bool':
      return bitBool(column, bytes);
    case 'bit-number':
      return bitNumber(bytes);
    case 'date':
    case 'datetime':
    case 'timestamp': {
      const text = bytes.toString('latin1');
      if (isZeroDate(text)) throw zeroDate(column, text);
      // The session runs in UTC: a TIMESTAMP's text is the UTC wall clock.
      return reader === 'timestamp' ? `${text}+00` : text;
    }
  }
}
