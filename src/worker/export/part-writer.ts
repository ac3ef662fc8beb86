/**
 * Rolls the CSV stream of one export into numbered part files and converts
 * each finished part to Parquet with DuckDB while the next part is still
 * arriving. Parts are cut only at record boundaries, so each one converts on
 * its own; the artifact is the ordered list of Parquet parts. At most
 * `maxPendingConversions` parts wait for DuckDB at once: past that, writing
 * waits, which slows the database stream instead of filling the disk.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { digestFile, type FileStamp } from '../../runtime/digest-file.ts';
import type { ParquetPart } from '../export-types.ts';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import { BC_MARK, csvToParquetSql, readCsvSql, type PartShape } from './duckdb-csv.ts';

/** About 30 socket reads of a COPY: one write system call instead of thirty, and little held in memory. */
const WRITE_BATCH_BYTES = 256 * 1024;
/** The length of BC_MARK less one: the most of it that can end one write and the rest begin the next. */
const SEAM_BYTES = BC_MARK.length - 1;

export class PartWriter {
  readonly #dir: string;
  readonly #columns: PlannedColumn[];
  readonly #duck: DuckDBConnection;
  readonly #maxPendingConversions: number;
  #partIndex = 0;
  #fd: number | null = null;
  #csvFile = '';
  #partRows = 0;
  #partBytes = 0;
  /** What DuckDB's CSV reader must be told about the current part. */
  #shape: PartShape = { longestRow: 0, mayHoldBc: false };
  /** Only results with date or timestamp columns look for BC values. */
  readonly #datesPresent: boolean;
  /** A copy of the last bytes written, so a BC mark split between two writes is still seen. */
  #tail: Uint8Array = new Uint8Array(0);
  /**
   * Written but not yet handed to the file: many socket reads go down in one
   * system call. Copied here, not kept: a source's chunk is its own again
   * once the next is asked for (row-source.ts).
   */
  readonly #batch = Buffer.allocUnsafe(WRITE_BATCH_BYTES);
  #batched = 0;
  #pending: Promise<ParquetPart>[] = [];
  /** One DuckDB connection runs one statement at a time, so conversions queue behind each other. */
  #lastConversion: Promise<unknown> = Promise.resolve();
  #done: ParquetPart[] = [];

  readonly #onPart: (part: ParquetPart, hashedAt: FileStamp) => void;

  /** `onPart` hears of each part as soon as its file is final, in order. */
  constructor(dir: string, columns: PlannedColumn[], duck: DuckDBConnection, onPart: (part: ParquetPart, hashedAt: FileStamp) => void = () => undefined, maxPendingConversions = 2) {
    this.#onPart = onPart;
    this.#dir = dir;
    this.#columns = columns;
    this.#duck = duck;
    this.#maxPendingConversions = maxPendingConversions;
    this.#datesPresent = columns.some((c) => c.storage === 'date' || c.storage === 'timestamp' || c.storage === 'timestamptz');
  }

  /** Bytes and records in the part being written. */
  get currentBytes(): number {
    return this.#partBytes;
  }

  /** The current part's CSV file with everything written so far in it, and what its reader must be told. */
  csvSoFar(): { file: string; shape: PartShape } {
    this.#flush();
    return { file: this.#csvFile, shape: { ...this.#shape } };
  }

  /** The current part's rows so far, read back with their stored types (the preview reads them). */
  rowsSoFarSql(): string {
    const written = this.csvSoFar();
    return readCsvSql(written.file, this.#columns, written.shape);
  }

  /** Appends whole records (or the start of one), none longer than `longestRow` bytes, to the current part. */
  write(bytes: Uint8Array, records: number, longestRow: number): void {
    if (this.#fd === null) this.#open();
    if (this.#datesPresent && !this.#shape.mayHoldBc && bytes.length > 0) {
      // About 10 GB/s: a 5M-row export spends well under 0.1 s here.
      const seam = Buffer.concat([this.#tail, bytes.subarray(0, SEAM_BYTES)]);
      this.#shape.mayHoldBc = seam.includes(BC_MARK) || Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).includes(BC_MARK);
      this.#tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - SEAM_BYTES)));
    }
    this.#append(bytes);
    this.#partBytes += bytes.length;
    this.#partRows += records;
    if (longestRow > this.#shape.longestRow) this.#shape.longestRow = longestRow;
  }

  /** Batches `bytes` for the file; a chunk of a batch's size or more, with nothing batched before it, goes down as it is. */
  #append(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      if (this.#batched === 0 && bytes.length - from >= WRITE_BATCH_BYTES) {
        writeAll(this.#fd!, bytes.subarray(from));
        return;
      }
      const taken = Math.min(bytes.length - from, WRITE_BATCH_BYTES - this.#batched);
      this.#batch.set(bytes.subarray(from, from + taken), this.#batched);
      this.#batched += taken;
      from += taken;
      if (this.#batched === WRITE_BATCH_BYTES) this.#flush();
    }
  }

  #flush(): void {
    if (this.#batched === 0) return;
    writeAll(this.#fd!, this.#batch.subarray(0, this.#batched));
    this.#batched = 0;
  }

  /** Ends the current part (it must end on a record boundary) and starts converting it. */
  async seal(): Promise<void> {
    if (this.#fd === null) return;
    this.#flush();
    closeSync(this.#fd);
    this.#fd = null;
    const csvFile = this.#csvFile;
    const rows = this.#partRows;
    const shape = this.#shape;
    // Until the next write opens a part, the current part is empty.
    this.#partRows = 0;
    this.#partBytes = 0;
    this.#resetShape();
    const parquetFile = join(this.#dir, `part-${String(this.#partIndex - 1).padStart(5, '0')}.parquet`);
    if (rows === 0) {
      rmSync(csvFile, { force: true });
      return;
    }
    const convert = async () => {
      const { part, hashedAt } = await this.#convert(csvFile, parquetFile, rows, shape);
      this.#onPart(part, hashedAt);
      return part;
    };
    const conversion = this.#lastConversion.then(convert, convert);
    this.#lastConversion = conversion;
    // Observed later by #settleOldest; this keeps an early failure from being "unhandled".
    conversion.catch(() => undefined);
    this.#pending.push(conversion);
    while (this.#pending.length > this.#maxPendingConversions) await this.#settleOldest();
  }

  /** Waits for every conversion; returns the parts in order. */
  async finish(): Promise<ParquetPart[]> {
    await this.seal();
    while (this.#pending.length > 0) await this.#settleOldest();
    if (this.#done.length === 0) {
      // An artifact of no rows still needs one file: readers find its schema there, and a read of no files fails.
      this.#open();
      closeSync(this.#fd!);
      this.#fd = null;
      const empty = await this.#convert(this.#csvFile, join(this.#dir, 'part-00000.parquet'), 0, this.#shape);
      this.#onPart(empty.part, empty.hashedAt);
      this.#done.push(empty.part);
    }
    return this.#done;
  }

  /** Stops writing and waits for conversions in flight, so the caller can remove the directory. */
  async abandon(): Promise<void> {
    this.#batched = 0;
    if (this.#fd !== null) {
      closeSync(this.#fd);
      this.#fd = null;
    }
    await Promise.allSettled(this.#pending);
    this.#pending = [];
  }

  #open(): void {
    this.#csvFile = join(this.#dir, `part-${String(this.#partIndex).padStart(5, '0')}.csv`);
    this.#partIndex++;
    this.#fd = openSync(this.#csvFile, 'w');
    this.#partRows = 0;
    this.#partBytes = 0;
    this.#resetShape();
  }

  #resetShape(): void {
    this.#shape = { longestRow: 0, mayHoldBc: false };
    this.#tail = new Uint8Array(0);
  }

  async #settleOldest(): Promise<void> {
    const part = await this.#pending[0]!;
    this.#pending.shift();
    this.#done.push(part);
  }

  async #convert(csvFile: string, parquetFile: string, rows: number, shape: PartShape): Promise<{ part: ParquetPart; hashedAt: FileStamp }> {
    await this.#duck.run(csvToParquetSql(csvFile, parquetFile, this.#columns, shape));
    rmSync(csvFile, { force: true });
    // Hashed here, while the next part is still streaming, so commit never rereads the bytes.
    const { sha256, bytes, stamp } = await digestFile(parquetFile);
    return { part: { name: basename(parquetFile), rows, bytes, sha256 }, hashedAt: stamp };
  }
}

/**
 * Writes all of `bytes`. A regular file takes a whole write unless the disk
 * fills (the next call then fails with ENOSPC); what a short write left is
 * written again.
 */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let from = 0; from < bytes.length; ) from += writeSync(fd, bytes, from, bytes.length - from);
}
