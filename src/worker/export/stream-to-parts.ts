/**
 * The loop of an export: CSV chunks in, whole records out to the part
 * writer. Caps apply at exact record boundaries: a row cap keeps exactly the
 * allowed rows, a byte cap the records that fit, a duration cap every whole
 * record the server sent before it stopped. Once anything stops the export,
 * the rest of the stream is drained rather than dropped, so the connection
 * stays in step with the server and the transaction can end cleanly.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { diskFullError, isDiskFull, SluiceError, toSluiceError } from '../../errors.ts';
import { rowJsonExpression } from '../../columns/value-encoding.ts';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import { CsvRecordScanner } from './csv-record-scanner.ts';
import { readCsvSql, type PartShape } from './duckdb-csv.ts';
import type { Cap, ExportHooks, ExportRequest, ExportResult } from '../export-types.ts';
import { PartWriter } from './part-writer.ts';
import type { RowSource } from './row-source.ts';

// 16 MiB parts keep DuckDB's conversion memory (and so the process's peak RSS) small while
// still being large enough that conversion overlaps the next part's download (measured:
// 32 MiB peaked ~60 MB higher at the same throughput).
const PART_BYTES = 16 * 1024 * 1024;

type StopReason = 'cancel' | Cap;

export async function streamToParts(
  source: RowSource,
  duck: DuckDBConnection,
  request: ExportRequest,
  columns: PlannedColumn[],
  hooks: ExportHooks,
): Promise<ExportResult> {
  const { previewRows, limits, materialize } = request;
  const rowLimit = materialize === 'never' ? previewRows : limits.maxRows;
  const rowCap: Cap = materialize === 'never' ? 'previewRows' : 'maxRows';
  const writer = new PartWriter(request.stagingDir, columns, duck, (part) => hooks.onPart(part));
  const scanner = new CsvRecordScanner();
  let rows = 0;
  let bytes = 0;
  let carry: Uint8Array = new Uint8Array(0);
  let cappedBy: Cap | null = null;
  // A limit of 0 rows (materialize "never" with previewRows 0) is reached before any byte: any byte is a row past it.
  let atRowLimit = rowLimit === 0;
  let stopReason: StopReason | null = null;
  let previewSent = false;
  let draining = false;
  let cancelledByUs = false;
  /** The stream ended with an error after we had asked the server to stop. */
  let interrupted = false;
  let failure: unknown = null;

  function cancelStatement(): void {
    if (cancelledByUs) return;
    cancelledByUs = true;
    source.cancel();
  }
  /** A row cap leaves at most one row to drain (the statement has LIMIT cap+1); anything else asks the server to stop. */
  function endStream(cancel: boolean): void {
    draining = true;
    if (cancel) cancelStatement();
  }
  function stop(reason: StopReason): void {
    if (stopReason !== null || draining) return;
    stopReason = reason;
    // Rows still arriving were produced before the server saw the cancel: they belong to the prefix.
    if (reason === 'maxDuration') cancelStatement();
    else endStream(true);
  }
  hooks.onStopper(stop);
  const deadline = setTimeout(() => stop('maxDuration'), limits.maxDurationMs);

  async function sendPreview(complete: boolean): Promise<void> {
    previewSent = true;
    const shown = Math.min(rows, previewRows);
    const written = writer.csvSoFar();
    const previewData = shown > 0 ? await readPreview(duck, written.file, written.shape, columns, shown) : [];
    hooks.onPreview({ columns: columns.map((c) => ({ name: c.name, type: c.type })), rows: previewData, complete });
  }

  async function take(chunk: Uint8Array, known: number | null, longestRow: number): Promise<void> {
    if (atRowLimit) {
      cappedBy = rowCap;
      return endStream(false);
    }
    // A source that counts its rows sends whole records: unless a cap falls inside this
    // chunk, nothing needs scanning (the scan cost about a quarter of a large export).
    const whole = known !== null && carry.length === 0 && rows + known <= rowLimit && bytes + chunk.length <= limits.maxBytes;
    const scan = whole
      ? { records: known, lastEnd: chunk.length, stoppedAt: chunk.length, longest: longestRow }
      : scanner.scan(chunk, 0, rowLimit - rows);
    // The carry is a copy: the chunk is the source's again once the next one is asked for.
    if (scan.records === 0) {
      carry = carry.length === 0 ? Buffer.from(chunk) : Buffer.concat([carry, chunk]);
      return;
    }
    let end = scan.lastEnd;
    let records = scan.records;
    if (bytes + carry.length + end > limits.maxBytes) {
      ({ end, records } = fitBytes(carry, chunk, limits.maxBytes - bytes));
      cappedBy = 'maxBytes';
    }
    if (records > 0) {
      // The longest record seen (its start in the carry counted) bounds the records kept, a subset.
      await write(carry, chunk.subarray(0, end), records, Math.max(scan.longest, known === null ? 0 : longestRow));
      carry = Buffer.from(chunk.subarray(end));
    }
    hooks.onProgress(rows, bytes);
    if (cappedBy !== null) return endStream(true);
    if (rows >= rowLimit) {
      if (scan.stoppedAt < chunk.length) {
        cappedBy = rowCap;
        return endStream(false);
      }
      atRowLimit = true;
    }
    if (!previewSent && rows > previewRows) await sendPreview(false);
  }

  /**
   * Writes `count` whole records (`head`, the carried start of the first,
   * then `body`), ending a part at the first record that brings it to
   * PART_BYTES, but never before the preview's rows, which are read from the
   * first part. Where parts end depends on the rows alone, not on how the
   * stream happened to be chunked, so an identical result gives identical
   * parts (and the store keeps them once). `longestRow` bounds every record's
   * length.
   */
  async function write(head: Uint8Array, body: Uint8Array, count: number, longestRow: number): Promise<void> {
    if (writer.currentBytes + head.length + body.length < PART_BYTES) {
      writer.write(head, 0, 0);
      writer.write(body, count, longestRow);
      rows += count;
      bytes += head.length + body.length;
      return;
    }
    let data: Uint8Array = Buffer.concat([head, body]);
    let left = count;
    for (;;) {
      const cut = partEnd(data, PART_BYTES - writer.currentBytes, previewRows + 1 - rows);
      if (cut === null) break;
      writer.write(data.subarray(0, cut.end), cut.records, longestRow);
      rows += cut.records;
      bytes += cut.end;
      left -= cut.records;
      data = data.subarray(cut.end);
      if (!previewSent) await sendPreview(false);
      await writer.seal();
    }
    if (left > 0) {
      writer.write(data, left, longestRow);
      rows += left;
      bytes += data.length;
    }
  }

  try {
    for await (const { bytes: chunk, rows: known, longestRow } of source) {
      if (draining || chunk.length === 0) continue;
      try {
        await take(chunk, known, longestRow);
      } catch (error) {
        // Our own failure: stop the statement, keep draining, report it after.
        failure = error;
        endStream(true);
      }
    }
  } catch (error) {
    if (cancelledByUs) interrupted = true;
    else failure = error;
  } finally {
    clearTimeout(deadline);
  }
  const stoppedBy = stopReason as StopReason | null;
  if (failure !== null && isDiskFull(failure)) {
    await writer.abandon();
    return storageFailed(previewSent, { columns, rows, bytes, cappedBy });
  }
  if (failure !== null || stoppedBy === 'cancel') {
    await writer.abandon();
    if (failure !== null) throw toSluiceError(failure);
    throw new SluiceError('QUERY_CANCELLED', 'The query was cancelled.');
  }
  // A statement that ended by itself before the cancel reached it was not cut: every row arrived.
  if (stoppedBy === 'maxDuration' && interrupted && cappedBy === null) cappedBy = 'maxDuration';
  if (cappedBy === 'maxDuration' && rows === 0) {
    await writer.abandon();
    throw new SluiceError('QUERY_TIMEOUT', `The query returned no row within ${limits.maxDurationMs} ms and was stopped.`, {
      limitMs: limits.maxDurationMs,
    });
  }
  const completeInPreview = !previewSent && cappedBy === null;
  if (!previewSent) await sendPreview(completeInPreview);
  const keep = materialize === 'always' || (materialize === 'auto' && !completeInPreview);
  if (!keep) {
    await writer.abandon();
    return { columns, rows, bytes, cappedBy, completeInPreview, parts: null, storageFailure: null };
  }
  try {
    return { columns, rows, bytes, cappedBy, completeInPreview, parts: await writer.finish(), storageFailure: null };
  } catch (error) {
    if (!isDiskFull(error)) throw error;
    await writer.abandon();
    return storageFailed(true, { columns, rows, bytes, cappedBy });
  }
}

const DISK_FULL = 'The server ran out of disk space for artifacts; nothing partial was kept.';

/** With a preview to give, the query still succeeds and only the artifact fails; without one, the query fails. */
function storageFailed(previewSent: boolean, result: Pick<ExportResult, 'columns' | 'rows' | 'bytes' | 'cappedBy'>): ExportResult {
  if (!previewSent) throw diskFullError(DISK_FULL);
  return { ...result, completeInPreview: false, parts: null, storageFailure: DISK_FULL };
}

async function readPreview(duck: DuckDBConnection, csvFile: string, shape: PartShape, columns: PlannedColumn[], n: number) {
  const reader = await duck.runAndReadAll(
    `SELECT ${rowJsonExpression(columns)} FROM (${readCsvSql(csvFile, columns, shape)}) LIMIT ${n}`,
  );
  return reader.getRowsJS().map((r) => JSON.parse(String(r[0])) as unknown[]);
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

/** How many whole records of carry+chunk fit in `budget` bytes, and where they end in the chunk. */
function fitBytes(carry: Uint8Array, chunk: Uint8Array, budget: number): { end: number; records: number } {
  const joined = Buffer.concat([carry, chunk]);
  // Records found in the first `budget` bytes are exactly those that end within it.
  const scan = new CsvRecordScanner().scan(joined.subarray(0, Math.max(0, budget)));
  // The carry never holds a whole record, so every record counted ends inside the chunk.
  return scan.records === 0 ? { end: 0, records: 0 } : { end: scan.lastEnd - carry.length, records: scan.records };
}
