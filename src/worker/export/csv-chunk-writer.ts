/**
 * CSV records written straight into bytes, value by value, as PostgreSQL's
 * COPY (FORMAT csv) writes them (the rules of csv-record.ts): a value is
 * quoted when it is empty, holds a comma, quote or line break, or is `\.`
 * alone on its line; NULL is an unquoted empty field. A row source that
 * reads its values as bytes (MariaDB's wire) or as typed values (SQLite)
 * copies them here without building a string per value and a string per
 * line, which cost most of those sources' time; what comes out is the same
 * bytes csvRecord would give, so caps count the same.
 *
 * Whole records are handed on in chunks with their count and their longest
 * record measured exactly, so the core never has to scan them.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { MAX_NUMBER_BYTES, writeNumber } from './number-digits.ts';
import type { SourceChunk } from './row-source.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const BACKSLASH = 0x5c;
const DOT = 0x2e;
const NEEDS_QUOTES = /[",\n\r]/;
/**
 * Room past a chunk's size, so the record that makes it full usually fits
 * without the buffer being grown (a copy of the whole chunk).
 */
const SLACK_BYTES = 64 * 1024;
/** Values up to this many bytes are copied byte by byte. */
const SHORT_COPY = 48;
/** Strings up to this many UTF-16 units are tried as plain ASCII, copied unit by unit. */
const SHORT_STRING = 128;

/** Whether `bytes[start, end)` must be quoted in a record of `columns` values. */
function mustQuote(bytes: Uint8Array, start: number, end: number, columns: number): boolean {
  if (start === end) return true;
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b === QUOTE || b === COMMA || b === NEWLINE || b === RETURN) return true;
  }
  return columns === 1 && end - start === 2 && bytes[start] === BACKSLASH && bytes[start + 1] === DOT;
}

export class CsvChunkWriter {
  readonly #columns: number;
  readonly #chunkBytes: number;
  #buffer: Buffer;
  #at = 0;
  #rows = 0;
  #recordStart = 0;
  #longest = 0;
  /** Values written in the record being written. */
  #values = 0;
  /** The buffer of the last chunk taken, while it may still be read. */
  #lent: Buffer | null = null;
  /** That buffer once handed back (giveBack): the next to write into. */
  #spare: Buffer | null = null;

  /** `chunkBytes`: how much a chunk holds before it is `full` (a longer record gets a chunk of its own size). */
  constructor(columns: number, chunkBytes: number) {
    this.#columns = columns;
    this.#chunkBytes = chunkBytes;
    this.#buffer = Buffer.allocUnsafe(chunkBytes + SLACK_BYTES);
  }

  /** Whole records written and not yet taken. */
  get rows(): number {
    return this.#rows;
  }

  /** The chunk holds enough to be handed on. */
  get full(): boolean {
    return this.#at >= this.#chunkBytes;
  }

  /** Room for `bytes` more; the record being written moves to a larger buffer if it must (never past a record start). */
  #room(bytes: number): void {
    if (this.#at + bytes <= this.#buffer.length) return;
    const keep = this.#buffer;
    const grown = Buffer.allocUnsafe(Math.max(keep.length * 2, this.#at + bytes));
    keep.copy(grown, 0, 0, this.#at);
    this.#buffer = grown;
  }

  #separator(): void {
    if (this.#values++ > 0) this.#buffer[this.#at++] = COMMA;
  }

  /** SQL NULL: an empty field. */
  null(): void {
    this.#room(1);
    this.#separator();
  }

  /** Bytes that never need quoting (digits, dates): copied as they are; empty ones are still quoted. */
  plain(bytes: Uint8Array, start: number, end: number): void {
    if (start === end) return this.#quoted(bytes, start, end);
    this.#room(end - start + 1);
    this.#separator();
    this.#copy(bytes, start, end);
  }

  /** Bytes that never need quoting followed by `suffix` (a timestamp and its UTC offset), as one value. */
  plainJoined(bytes: Uint8Array, start: number, end: number, suffix: Uint8Array): void {
    this.#room(end - start + suffix.length + 1);
    this.#separator();
    this.#copy(bytes, start, end);
    this.#copy(suffix, 0, suffix.length);
  }

  /**
   * Copies `bytes[start, end)` to the end of the chunk (room made). Most
   * values are a few bytes: a loop copies those without the object a
   * subarray makes or the cost of a native call.
   */
  #copy(bytes: Uint8Array, start: number, end: number): void {
    const out = this.#buffer;
    if (end - start > SHORT_COPY) {
      out.set(bytes.subarray(start, end), this.#at);
      this.#at += end - start;
      return;
    }
    let at = this.#at;
    for (let i = start; i < end; i++) out[at++] = bytes[i]!;
    this.#at = at;
  }

  /** UTF-8 text bytes, quoted where they must be. */
  text(bytes: Uint8Array, start: number, end: number): void {
    if (mustQuote(bytes, start, end, this.#columns)) return this.#quoted(bytes, start, end);
    this.#room(end - start + 1);
    this.#separator();
    this.#copy(bytes, start, end);
  }

  /** ASCII text that never needs quoting (a number's digits, base64) unless it is empty. */
  ascii(value: string): void {
    if (value === '') return this.string(value);
    this.#room(value.length + 1);
    this.#separator();
    if (value.length > SHORT_STRING) {
      this.#at += this.#buffer.write(value, this.#at, 'latin1');
      return;
    }
    const out = this.#buffer;
    let at = this.#at;
    for (let i = 0; i < value.length; i++) out[at++] = value.charCodeAt(i);
    this.#at = at;
  }

  /**
   * A number as String(value) writes it (`otherwise(value)` for -0, NaN, the
   * infinities, and numbers with an exponent or many places, which
   * number-digits.ts leaves out); never quoted.
   */
  number(value: number, otherwise: (value: number) => string): void {
    this.#room(MAX_NUMBER_BYTES + 1);
    const at = this.#at;
    this.#separator();
    const end = writeNumber(this.#buffer, this.#at, value);
    if (end >= 0) {
      this.#at = end;
      return;
    }
    this.#at = at;
    this.#values--;
    this.ascii(otherwise(value));
  }

  /** A string, quoted where it must be. */
  string(value: string): void {
    // Most strings are short ASCII needing no quotes: copied unit by unit, with no scan and no native call.
    if (value.length <= SHORT_STRING && value.length > 0 && !(this.#columns === 1 && value === '\\.')) {
      this.#room(value.length + 1);
      const out = this.#buffer;
      let at = this.#at;
      if (this.#values > 0) out[at++] = COMMA;
      let i = 0;
      for (; i < value.length; i++) {
        const unit = value.charCodeAt(i);
        if (unit >= 0x80 || unit === QUOTE || unit === COMMA || unit === NEWLINE || unit === RETURN) break;
        out[at++] = unit;
      }
      if (i === value.length) {
        this.#values++;
        this.#at = at;
        return;
      }
    }
    const quote = value === '' || NEEDS_QUOTES.test(value) || (this.#columns === 1 && value === '\\.');
    const text = quote ? `"${value.replaceAll('"', '""')}"` : value;
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    this.#room(text.length * 3 + 1);
    this.#separator();
    this.#at += this.#buffer.write(text, this.#at, 'utf8');
  }

  #quoted(bytes: Uint8Array, start: number, end: number): void {
    this.#room(2 * (end - start) + 3);
    this.#separator();
    const out = this.#buffer;
    let at = this.#at;
    out[at++] = QUOTE;
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      if (b === QUOTE) out[at++] = QUOTE;
      out[at++] = b;
    }
    out[at++] = QUOTE;
    this.#at = at;
  }

  /** Ends the record being written. */
  endRecord(): void {
    this.#room(1);
    this.#buffer[this.#at++] = NEWLINE;
    const length = this.#at - this.#recordStart;
    if (length > this.#longest) this.#longest = length;
    this.#recordStart = this.#at;
    this.#values = 0;
    this.#rows++;
  }

  /** Drops the record being written (its value failed), keeping the whole ones before it. */
  dropRecord(): void {
    this.#at = this.#recordStart;
    this.#values = 0;
  }

  /**
   * The whole records written so far as a chunk of their own (the writer
   * goes on in a new buffer, so the chunk is the consumer's to keep). Bytes
   * that are not valid UTF-8 (a server that sent some in a text value) are
   * replaced as decoding each value would have, U+FFFD for each bad sequence.
   */
  take(): SourceChunk & { rows: number } {
    let bytes = this.#buffer.subarray(0, this.#recordStart);
    let longestRow = this.#longest;
    if (!validUtf8(bytes)) {
      bytes = Buffer.from(bytes.toString('utf8'), 'utf8');
      // One bad byte may become three.
      longestRow *= 3;
    }
    const chunk = { bytes, rows: this.#rows, longestRow };
    // Only a buffer of its own (not a slice of the runtime's shared pool) may be written over later.
    const own = bytes.buffer === this.#buffer.buffer && this.#buffer.byteOffset === 0 && this.#buffer.length === this.#buffer.buffer.byteLength;
    this.#lent = own ? this.#buffer : null;
    const rest = this.#buffer.subarray(this.#recordStart, this.#at);
    const size = Math.max(this.#chunkBytes + SLACK_BYTES, rest.length * 2);
    const spare = this.#spare;
    this.#spare = null;
    this.#buffer = spare !== null && spare.length >= size ? spare : Buffer.allocUnsafe(size);
    this.#buffer.set(rest, 0);
    this.#at = rest.length;
    this.#recordStart = 0;
    this.#rows = 0;
    this.#longest = 0;
    return chunk;
  }

  /**
   * The last chunk taken is no longer read (it was written out): the chunk
   * after the next is written into its buffer instead of a new one, whose
   * pages would all be faulted in afresh.
   */
  giveBack(): void {
    this.#spare = this.#lent;
    this.#lent = null;
  }
}

/** node:buffer's isUtf8 where the runtime has it; a decode and compare where it does not. */
function validUtf8(bytes: Buffer): boolean {
  if (typeof isUtf8 === 'function') return isUtf8(bytes);
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}
