/**
 * The loop of an export whose rows arrive as DuckDB chunks
 * (chunk-row-source.ts): each chunk is appended to a table of the export's
 * DuckDB (table-part-writer.ts), and the CSV length each of its rows
 * carries decides, row by row, what the caps keep and where parts end
 * (table-part-cutter.ts). The caps, the stop control, the preview and the
 * finish step are the CSV path's own (stream-to-parts.ts); a DuckDB chunk
 * is what a chunk of CSV is to them.
 */
import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import type { ExportHooks, ExportRequest, ExportResult } from '../export-types.ts';
import { CapTracker } from './cap-tracker.ts';
import type { ChunkRowSource } from './chunk-row-source.ts';
import { ExportPreview } from './export-preview.ts';
import { finishExport, type ExportPieces } from './finish-export.ts';
import { readToEnd, StopControl } from './stop-control.ts';
import { TablePartCutter } from './table-part-cutter.ts';
import { TablePartWriter } from './table-part-writer.ts';

type Pieces = ExportPieces<TablePartWriter, TablePartCutter>;

export async function streamTableToParts(
  source: ChunkRowSource,
  duck: DuckDBConnection,
  request: ExportRequest,
  columns: PlannedColumn[],
  hooks: ExportHooks,
  partBytes: number,
  copier: DuckDBConnection = duck,
): Promise<ExportResult> {
  const writer = new TablePartWriter(request.stagingDir, columns, duck, source.tableColumns, (part, hashedAt) => hooks.onPart(part, hashedAt), copier);
  const preview = new ExportPreview(duck, columns, request.previewRows, { bytes: request.previewBytes, cellChars: request.previewCellChars }, writer, (data) => hooks.onPreview(data));
  const cutter = new TablePartCutter(writer, partBytes, preview);
  const stops = new StopControl(source);
  const pieces: Pieces = { writer, preview, cutter, caps: new CapTracker(request, cutter), stops };
  hooks.onStopper((reason) => stops.stop(reason));
  stops.startDeadline(request.limits.maxDurationMs);
  const failure = await readToEnd(source, stops, (chunk) => chunk.rowCount === 0, (chunk) => takeChunk(pieces, chunk, columns.length, hooks));
  return finishExport(pieces, failure, request, columns);
}

/** Keeps the rows of one chunk that the caps allow, and ends the stream when a cap fires. */
async function takeChunk({ writer, cutter, caps, stops, preview }: Pieces, chunk: DuckDBDataChunk, columnCount: number, hooks: ExportHooks): Promise<void> {
  const passed = caps.beforeChunk();
  if (passed !== null) return stops.end(passed);
  const arrived = chunk.rowCount;
  const count = Math.min(arrived, caps.rowsLeft);
  const lengths = csvLengths(chunk, columnCount, count);
  await writer.append(chunk);
  // The chunk's memory is native and freed only when the garbage collector, which does not see its size, gets to
  // it: measured, 1M rows held ~100 MB of spent chunks. The appender copied its rows; its text goes now.
  chunk.reset();
  await cutter.keep(lengths.subarray(0, caps.fitLengths(lengths)));
  writer.dropPending();
  hooks.onProgress(cutter.rows, cutter.bytes);
  const ended = caps.afterChunk(count < arrived);
  if (ended !== null) return stops.end(ended);
  if (!preview.sent && cutter.rows > preview.firstRows) await preview.send(cutter.rows, false);
}

/** The CSV lengths of the chunk's first `count` rows, from the column the source added after the result's. */
function csvLengths(chunk: DuckDBDataChunk, columnCount: number, count: number): Float64Array {
  const vector = chunk.getColumnVector(columnCount);
  const lengths = new Float64Array(count);
  for (let i = 0; i < count; i++) lengths[i] = vector.getItem(i) as number;
  return lengths;
}
