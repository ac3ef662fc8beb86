/**
 * Hands whole records to the part writer and decides where parts end. A
 * record cut between two chunks waits in the carry until its end arrives;
 * the carry is a copy, because a chunk's bytes are the source's again once
 * the next chunk is asked for (row-source.ts). Counts the rows and bytes
 * kept, which the caps are measured against.
 */
import { CsvRecordScanner, type ScanResult } from './csv-record-scanner.ts';
import type { Kept } from './cap-tracker.ts';
import type { ExportPreview } from './export-preview.ts';
import type { PartWriter } from './part-writer.ts';

export class PartCutter implements Kept {
  readonly #writer: PartWriter;
  readonly #partBytes: number;
  readonly #preview: ExportPreview;
  readonly #scanner = new CsvRecordScanner();
  /** The start of a record whose end has not arrived yet. */
  #carry: Uint8Array = new Uint8Array(0);
  #rows = 0;
  #bytes = 0;

  /** Parts end at the first record that brings them to `partBytes`; the preview's rows are read from the first. */
  constructor(writer: PartWriter, partBytes: number, preview: ExportPreview) {
    this.#writer = writer;
    this.#partBytes = partBytes;
    this.#preview = preview;
  }

  get rows(): number {
    return this.#rows;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get carry(): Uint8Array {
    return this.#carry;
  }

  /** The records that end in `chunk` (the carry's record first), stopping at the end of the `maxRecords`-th. */
  scan(chunk: Uint8Array, maxRecords: number): ScanResult {
    return this.#scanner.scan(chunk, 0, maxRecords);
  }

  /** A chunk in which no record ends: all of it continues the carried record. */
  hold(chunk: Uint8Array): void {
    this.#carry = this.#carry.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#carry, chunk]);
  }

  /**
   * Keeps the carry and the first `end` bytes of `chunk`, `records` whole
   * records none longer than `longestRow`; the rest of the chunk is carried.
   */
  async keep(chunk: Uint8Array, end: number, records: number, longestRow: number): Promise<void> {
    await this.#write(this.#carry, chunk.subarray(0, end), records, longestRow);
    this.#carry = Buffer.from(chunk.subarray(end));
  }

  /**
   * Writes `count` whole records (`head`, the carried start of the first,
   * then `body`), ending a part at the first record that brings it to
   * the part size, but never before the preview's rows, which are read from
   * the first part. Where parts end depends on the rows alone, not on how
   * the stream happened to be chunked, so an identical result gives
   * identical parts (and the store keeps them once).
   */
  async #write(head: Uint8Array, body: Uint8Array, count: number, longestRow: number): Promise<void> {
    const writer = this.#writer;
    if (writer.currentBytes + head.length + body.length < this.#partBytes) {
      writer.write(head, 0, 0);
      writer.write(body, count, longestRow);
      this.#count(count, head.length + body.length);
      return;
    }
    let data: Uint8Array = Buffer.concat([head, body]);
    let left = count;
    for (;;) {
      const cut = partEnd(data, this.#partBytes - writer.currentBytes, this.#preview.firstRows + 1 - this.#rows);
      if (cut === null) break;
      writer.write(data.subarray(0, cut.end), cut.records, longestRow);
      this.#count(cut.records, cut.end);
      left -= cut.records;
      data = data.subarray(cut.end);
      if (!this.#preview.sent) await this.#preview.send(this.#rows, false);
      await writer.seal();
    }
    if (left > 0) {
      writer.write(data, left, longestRow);
      this.#count(left, data.length);
    }
  }

  #count(records: number, bytes: number): void {
    this.#rows += records;
    this.#bytes += bytes;
  }
}

/**
 * The end of the first whole record of `data` that both ends at or past
 * `bytes` and is at least the `records`-th (and is at least the first);
 * null when `data` holds no such record.
 */
function partEnd(data: Uint8Array, bytes: number, records: number): { end: number; records: number } | null {
  const scan = new CsvRecordScanner().scan(data, 0, Math.max(1, records), bytes);
  if (scan.records === 0 || scan.records < records || scan.lastEnd < bytes) return null;
  return { end: scan.lastEnd, records: scan.records };
}
