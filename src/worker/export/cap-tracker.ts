/**
 * The row and byte caps of one export, applied at exact record boundaries,
 * and which cap cut the result. A row cap keeps exactly the allowed rows, a
 * byte cap the whole records that fit. The duration cap keeps every whole
 * record the server sent before it stopped; the deadline decides it
 * (stop-control.ts) and it is only recorded here. The caps are measured
 * against what has been kept so far, which the part cutter counts.
 */
import type { Cap, ExportRequest } from '../export-types.ts';
import { CsvRecordScanner } from './csv-record-scanner.ts';
import type { StreamEnd } from './stop-control.ts';

/** The whole records kept so far and their CSV bytes. */
export interface Kept {
  readonly rows: number;
  readonly bytes: number;
}

/** Whole records found in a chunk: how many, and where the last one ends in the chunk. */
export interface Found {
  records: number;
  end: number;
}

export class CapTracker {
  readonly #rowLimit: number;
  readonly #rowCap: Cap;
  readonly #maxBytes: number;
  readonly #kept: Kept;
  #cappedBy: Cap | null = null;
  /** The rows kept are exactly the row limit, reached at the very end of a chunk. */
  #atRowLimit: boolean;

  constructor({ previewRows, limits, materialize }: ExportRequest, kept: Kept) {
    // Reading only the preview, the smaller of it and the row cap bounds the rows; the row cap is named when it is the one.
    this.#rowLimit = materialize === 'never' ? Math.min(previewRows, limits.maxRows) : limits.maxRows;
    this.#rowCap = materialize === 'never' && previewRows < limits.maxRows ? 'previewRows' : 'maxRows';
    this.#maxBytes = limits.maxBytes;
    this.#kept = kept;
    // A limit of 0 rows (materialize "never" with previewRows 0) is reached before any byte: any byte is a row past it.
    this.#atRowLimit = this.#rowLimit === 0;
  }

  get cappedBy(): Cap | null {
    return this.#cappedBy;
  }

  /** Rows that may still be kept. */
  get rowsLeft(): number {
    return this.#rowLimit - this.#kept.rows;
  }

  /** Whether `records` more records in `length` more bytes stay within both caps. */
  allows(records: number, length: number): boolean {
    return this.#kept.rows + records <= this.#rowLimit && this.#kept.bytes + length <= this.#maxBytes;
  }

  /** A chunk arrived: past a row limit already reached, any byte is a row past it, so the row cap fires. */
  beforeChunk(): StreamEnd | null {
    if (!this.#atRowLimit) return null;
    this.#cappedBy = this.#rowCap;
    return 'drain';
  }

  /**
   * The records of the carry and the chunk that the byte cap lets through:
   * all of `found`, or, when they would pass it, the whole records that fit
   * (the byte cap then fires).
   */
  withinBytes(carry: Uint8Array, chunk: Uint8Array, found: Found): Found {
    if (this.#kept.bytes + carry.length + found.end <= this.#maxBytes) return found;
    const fit = fitBytes(carry, chunk, this.#maxBytes - this.#kept.bytes);
    this.#cappedBy = 'maxBytes';
    return fit;
  }

  /**
   * How many of records of these CSV lengths, in order, the byte cap lets
   * through: all of them, or, when they would pass it, those that fit (the
   * byte cap then fires).
   */
  fitLengths(lengths: ArrayLike<number>): number {
    let budget = this.#maxBytes - this.#kept.bytes;
    for (let i = 0; i < lengths.length; i++) {
      budget -= lengths[i]!;
      if (budget < 0) {
        this.#cappedBy = 'maxBytes';
        return i;
      }
    }
    return lengths.length;
  }

  /**
   * A chunk's records were kept: whether the stream must end. A row limit
   * reached inside the chunk (`stoppedInside`: the scan stopped before its
   * end) fires the row cap now; one reached at its very end fires only if
   * another byte comes.
   */
  afterChunk(stoppedInside: boolean): StreamEnd | null {
    if (this.#cappedBy !== null) return 'cancel';
    if (this.#kept.rows >= this.#rowLimit) {
      if (stoppedInside) {
        this.#cappedBy = this.#rowCap;
        return 'drain';
      }
      this.#atRowLimit = true;
    }
    return null;
  }

  /** The deadline cut the statement short: unless a cap already cut the result, the duration cap did. */
  deadlineCut(): void {
    this.#cappedBy ??= 'maxDuration';
  }
}

/** How many whole records of carry+chunk fit in `budget` bytes, and where they end in the chunk. */
function fitBytes(carry: Uint8Array, chunk: Uint8Array, budget: number): Found {
  const joined = Buffer.concat([carry, chunk]);
  // Records found in the first `budget` bytes are exactly those that end within it.
  const scan = new CsvRecordScanner().scan(joined.subarray(0, Math.max(0, budget)));
  // The carry never holds a whole record, so every record counted ends inside the chunk.
  return scan.records === 0 ? { end: 0, records: 0 } : { end: scan.lastEnd - carry.length, records: scan.records };
}
