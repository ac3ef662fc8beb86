/**
 * Finds record boundaries in PostgreSQL's CSV COPY stream without parsing
 * fields. Records end at a newline outside quotes; quotes inside a quoted
 * field are doubled, so toggling on every quote byte keeps the state right.
 * The scan jumps with Buffer.indexOf, so it costs little next to the copy.
 * Knowing where records end lets the export cut parts, caps and the preview
 * exactly at row boundaries.
 */
const QUOTE = 0x22;
const NEWLINE = 0x0a;

export interface ScanResult {
  /** Complete records found in the scanned range. */
  records: number;
  /** Offset just past the last complete record found, or -1 if none ended. */
  lastEnd: number;
  /** Where scanning stopped (the end, or just past the record that reached the limit). */
  stoppedAt: number;
}

export class CsvRecordScanner {
  #inQuote = false;

  /** Scans `chunk` from `start`, stopping once `maxRecords` records have ended. */
  scan(chunk: Uint8Array & { indexOf(value: number, from?: number): number }, start = 0, maxRecords = Infinity): ScanResult {
    let records = 0;
    let lastEnd = -1;
    let pos = start;
    const length = chunk.length;
    while (pos < length && records < maxRecords) {
      if (this.#inQuote) {
        const close = chunk.indexOf(QUOTE, pos);
        if (close === -1) {
          pos = length;
          break;
        }
        this.#inQuote = false;
        pos = close + 1;
        continue;
      }
      const newline = chunk.indexOf(NEWLINE, pos);
      const quote = chunk.indexOf(QUOTE, pos);
      if (newline === -1 && quote === -1) {
        pos = length;
        break;
      }
      if (quote !== -1 && (newline === -1 || quote < newline)) {
        this.#inQuote = true;
        pos = quote + 1;
        continue;
      }
      records++;
      pos = newline + 1;
      lastEnd = pos;
    }
    return { records, lastEnd, stoppedAt: pos };
  }
}
