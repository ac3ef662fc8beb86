/**
 * The loop of an export whose rows arrive as DuckDB chunks
 * (chunk-row-source.ts): the chunks are appended to a table of the export's
 * DuckDB and taken in batches. A batch is measured in SQL (the CSV bytes
 * its records would take); when it fits the caps and the current part,
 * it is kept whole, otherwise each record's length is read and the caps and
 * part ends fall on exact rows. The caps, the stop control, the preview and
 * the finish step are the CSV path's own (stream-to-parts.ts); a batch is
 * what a chunk of CSV is to them.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import type { ExportHooks, ExportRequest, ExportResult } from '../export-types.ts';
import { CapTracker } from './cap-tracker.ts';
import type { ChunkRowSource } from './chunk-row-source.ts';
import { ExportPreview } from './export-preview.ts';
import { finishExport, type ExportPieces } from './finish-export.ts';
import { StopControl } from './stop-control.ts';
import { TablePartCutter } from './table-part-cutter.ts';
import { TablePartWriter } from './table-part-writer.ts';

/** Rows per batch: 16 DuckDB chunks; each batch costs one statement that measures it. */
const BATCH_ROWS = 32_768;

type Pieces = ExportPieces<TablePartWriter, TablePartCutter>;

export async function streamTableToParts(
  source: ChunkRowSource,
  duck: DuckDBConnection,
  request: ExportRequest,
  columns: PlannedColumn[],
  hooks: ExportHooks,
  partBytes: number,
): Promise<ExportResult> {
  const writer = new TablePartWriter(request.stagingDir, columns, duck, source, (part) => hooks.onPart(part));
  const preview = new ExportPreview(duck, columns, request.previewRows, { bytes: request.previewBytes, cellChars: request.previewCellChars }, writer, (data) => hooks.onPreview(data));
  const cutter = new TablePartCutter(writer, partBytes, preview);
  const stops = new StopControl(source);
  const pieces: Pieces = { writer, preview, cutter, caps: new CapTracker(request, cutter), stops };
  hooks.onStopper((reason) => stops.stop(reason));
  stops.startDeadline(request.limits.maxDurationMs);
  let failure: unknown = null;
  // Our own failure stops the statement and the rest is drained; it is reported after.
  const fail = (error: unknown) => {
    failure = error;
    stops.end('cancel');
  };
  try {
    for await (const chunk of source) {
      if (stops.draining || chunk.rowCount === 0) continue;
      try {
        await writer.append(chunk);
        if (writer.pendingRows >= BATCH_ROWS) await takeBatch(pieces, hooks);
      } catch (error) {
        fail(error);
      }
    }
  } catch (error) {
    if (!stops.endedByOurCancel()) failure = error;
  } finally {
    stops.clearDeadline();
  }
  // Rows that arrived before the stream ended (by itself, or cut by the deadline) are still taken.
  if (failure === null && !stops.draining && writer.pendingRows > 0) await takeBatch(pieces, hooks).catch(fail);
  return finishExport(pieces, failure, request, columns);
}

/** Keeps the pending rows the caps allow, and ends the stream when a cap fires. */
async function takeBatch({ writer, cutter, caps, stops, preview }: Pieces, hooks: ExportHooks): Promise<void> {
  const passed = caps.beforeChunk();
  if (passed !== null) {
    writer.dropPending();
    return stops.end(passed);
  }
  const pending = writer.pendingRows;
  const count = Math.min(pending, caps.rowsLeft);
  const bytes = await writer.pendingBytes(count);
  if (caps.allows(count, bytes) && cutter.fitsInPart(bytes)) cutter.keepWhole(count, bytes);
  else {
    const lengths = await writer.pendingLengths(count);
    await cutter.keep(lengths.slice(0, caps.fitLengths(lengths)));
  }
  writer.dropPending();
  hooks.onProgress(cutter.rows, cutter.bytes);
  const ended = caps.afterChunk(count < pending);
  if (ended !== null) return stops.end(ended);
  if (!preview.sent && cutter.rows > preview.firstRows) await preview.send(cutter.rows, false);
}
