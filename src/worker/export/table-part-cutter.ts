/**
 * Decides where the parts of a chunk-fed export end (table-part-writer.ts)
 * by the same rule as the CSV path (part-cutter.ts): a part ends at the
 * first record that brings its CSV bytes to the part size, but never before
 * the preview's rows, which are read from the first part. Where parts end
 * depends on the rows alone, not on how they were batched. Counts the rows
 * and CSV bytes kept, which the caps are measured against.
 */
import type { Kept } from './cap-tracker.ts';
import type { ExportPreview } from './export-preview.ts';
import type { TablePartWriter } from './table-part-writer.ts';

export class TablePartCutter implements Kept {
  readonly #writer: TablePartWriter;
  readonly #partBytes: number;
  readonly #preview: ExportPreview;
  #rows = 0;
  #bytes = 0;

  constructor(writer: TablePartWriter, partBytes: number, preview: ExportPreview) {
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

  #keepInPart(count: number, bytes: number): void {
    this.#writer.keep(count, bytes);
    this.#rows += count;
    this.#bytes += bytes;
  }

  /** Keeps the pending rows of these CSV lengths, in order, sealing each part as it fills. */
  async keep(lengths: ArrayLike<number>): Promise<void> {
    let from = 0;
    while (from < lengths.length) {
      // The part may end only at or after this many records more.
      const atLeast = Math.max(1, this.#preview.firstRows + 1 - this.#rows);
      let bytes = 0;
      let end = from;
      let full = false;
      while (end < lengths.length && !full) {
        bytes += lengths[end]!;
        end++;
        full = this.#writer.currentBytes + bytes >= this.#partBytes && end - from >= atLeast;
      }
      this.#keepInPart(end - from, bytes);
      from = end;
      if (!full) return;
      if (!this.#preview.sent) await this.#preview.send(this.#rows, false);
      await this.#writer.seal();
    }
  }
}
