/**
 * Rows as PostgreSQL's COPY (FORMAT csv) writes them (worker/export/
 * row-source.ts): a value quoted only where it must be (empty, a comma,
 * quote or line break, or `\.` alone on its line), NULL an unquoted empty
 * field, one record a line. Records are gathered into batches of whole
 * records with their count and a bound on the longest.
 */
import { Buffer } from 'node:buffer';
import { csvRecord } from '../../../worker/export/csv-record.ts';

/** Whole records gathered until a batch is worth sending. */
export class CsvBatch {
  #text = '';
  #rows = 0;
  #longest = 0;

  add(values: (string | null)[]): void {
    const line = csvRecord(values);
    if (line.length > this.#longest) this.#longest = line.length;
    this.#text += line;
    this.#rows++;
  }

  get rows(): number {
    return this.#rows;
  }

  /** UTF-16 units so far: a UTF-8 byte count is at most three times this. */
  get length(): number {
    return this.#text.length;
  }

  /** The batch's bytes and counts, and an empty batch after it. */
  take(): { bytes: Buffer; rows: number; longestRow: number } {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8: a bound without measuring every line.
    const batch = { bytes: Buffer.from(this.#text, 'utf8'), rows: this.#rows, longestRow: this.#longest * 3 };
    this.#text = '';
    this.#rows = 0;
    this.#longest = 0;
    return batch;
  }
}
