/**
 * Finds record boundaries in PostgreSQL's CSV without parsing fields.
 * Records end at a newline outside quotes; quotes inside a quoted field are
 * doubled, so toggling on every quote byte keeps the state right. The scan
 * jumps with Buffer.indexOf and remembers where the next quote is, so a
 * stretch without quotes (most of PostgreSQL's CSV, which quotes only values
 * that need it) costs one native search per record. Knowing where records
 * end, and how long they are, lets the export count rows, cut parts, caps
 * and the preview exactly at record boundaries, and tell DuckDB its longest
 * line.
 */
const QUOTE = 0x22;
const NEWLINE = 0x0a;

type Bytes = Uint8Array & { indexOf(value: number, from?: number): number };

export interface ScanResult {
  /** Complete records found in the scanned range. */
  records: number;
  /** Offset just past the last complete record found, or -1 if none ended. */
  lastEnd: number;
  /** Where scanning stopped (the end, or just past the record that met the limits). */
  stoppedAt: number;
  /** The longest of the records found, in bytes with its newline, counting its start in earlier chunks. */
  longest: number;
}

export class CsvRecordScanner {
  #inQuote = false;
  /** Bytes of the unfinished record that came in earlier chunks. */
  #carried = 0;

  /**
   * Scans `chunk` from `start`, stopping at the first record end where at
   * least `maxRecords` records have ended and the end is at or past `minEnd`.
   */
  scan(chunk: Bytes, start = 0, maxRecords = Infinity, minEnd = 0): ScanResult {
    let records = 0;
    let lastEnd = -1;
    let longest = 0;
    let recordStart = start - this.#carried;
    let pos = start;
    const length = chunk.length;
    // The next quote at or after `pos`; -1 once there is none left in the chunk.
    let quote = chunk.indexOf(QUOTE, pos);
    while (pos < length && (records < maxRecords || (records > 0 && lastEnd < minEnd))) {
      if (this.#inQuote) {
        if (quote === -1) {
          pos = length;
          break;
        }
        this.#inQuote = false;
        pos = quote + 1;
        quote = chunk.indexOf(QUOTE, pos);
        continue;
      }
      const newline = chunk.indexOf(NEWLINE, pos);
      if (quote !== -1 && (newline === -1 || quote < newline)) {
        this.#inQuote = true;
        pos = quote + 1;
        quote = chunk.indexOf(QUOTE, pos);
        continue;
      }
      if (newline === -1) {
        pos = length;
        break;
      }
      records++;
      pos = newline + 1;
      if (pos - recordStart > longest) longest = pos - recordStart;
      recordStart = pos;
      lastEnd = pos;
    }
    this.#carried = pos - recordStart;
    return { records, lastEnd, stoppedAt: pos, longest };
  }
}
