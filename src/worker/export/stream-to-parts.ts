/**
 * The loop of an export: CSV chunks in, whole records out to the part
 * writer. It wires the pieces: the caps decide how many records of a chunk
 * are kept (cap-tracker.ts), the cutter writes them and cuts the parts
 * (part-cutter.ts), the stop control ends the stream (stop-control.ts), and
 * the finish step turns how it ended into the result (finish-export.ts).
 * Once anything stops the export, the rest of the stream is drained rather
 * than dropped, so the connection stays in step with the server and the
 * transaction can end cleanly.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import type { ExportHooks, ExportRequest, ExportResult } from '../export-types.ts';
import { CapTracker } from './cap-tracker.ts';
import { ExportPreview } from './export-preview.ts';
import { finishExport, type ExportPieces } from './finish-export.ts';
import { PartCutter } from './part-cutter.ts';
import { PartWriter } from './part-writer.ts';
import type { RowSource, SourceChunk } from './row-source.ts';
import { isChunkRowSource, type ChunkRowSource } from './chunk-row-source.ts';
import { streamTableToParts } from './stream-table-to-parts.ts';
import { readToEnd, StopControl } from './stop-control.ts';

// 16 MiB parts keep DuckDB's conversion memory (and so the process's peak RSS) small while
// still being large enough that conversion overlaps the next part's download (measured:
// 32 MiB peaked ~60 MB higher at the same throughput). Set here, where bench/lib/machine.ts
// reads it for its results, and handed to the part cutter.
const PART_BYTES = 16 * 1024 * 1024;

export async function streamToParts(
  source: RowSource | ChunkRowSource,
  duck: DuckDBConnection,
  request: ExportRequest,
  columns: PlannedColumn[],
  hooks: ExportHooks,
  /** A second connection of `duck`'s DuckDB, where a source of DuckDB chunks has its parts written while it goes on. */
  copier: DuckDBConnection = duck,
): Promise<ExportResult> {
  if (isChunkRowSource(source)) return streamTableToParts(source, duck, request, columns, hooks, PART_BYTES, copier);
  const writer = new PartWriter(request.stagingDir, columns, duck, (part, hashedAt) => hooks.onPart(part, hashedAt));
  const preview = new ExportPreview(duck, columns, request.previewRows, { bytes: request.previewBytes, cellChars: request.previewCellChars }, writer, (data) => hooks.onPreview(data));
  const cutter = new PartCutter(writer, PART_BYTES, preview);
  const stops = new StopControl(source);
  const pieces: ExportPieces<PartWriter, PartCutter> = { writer, preview, cutter, caps: new CapTracker(request, cutter), stops };
  hooks.onStopper((reason) => stops.stop(reason));
  stops.startDeadline(request.limits.maxDurationMs);
  const failure = await readToEnd(source, stops, (chunk) => chunk.bytes.length === 0, (chunk) => takeChunk(pieces, chunk, hooks));
  return finishExport(pieces, failure, request, columns);
}

/** Keeps the whole records of one chunk that the caps allow, and ends the stream when a cap fires. */
async function takeChunk(
  { cutter, caps, stops, preview }: ExportPieces<PartWriter, PartCutter>,
  { bytes: chunk, rows: known, longestRow }: SourceChunk,
  hooks: ExportHooks,
): Promise<void> {
  const passed = caps.beforeChunk();
  if (passed !== null) return stops.end(passed);
  // A source that counts its rows sends whole records: unless a cap falls inside this
  // chunk, nothing needs scanning (the scan cost about a quarter of a large export).
  const whole = known !== null && cutter.carry.length === 0 && caps.allows(known, chunk.length);
  const scan = whole
    ? { records: known, lastEnd: chunk.length, stoppedAt: chunk.length, longest: longestRow }
    : cutter.scan(chunk, caps.rowsLeft);
  if (scan.records === 0) return cutter.hold(chunk);
  const { end, records } = caps.withinBytes(cutter.carry, chunk, { records: scan.records, end: scan.lastEnd });
  // The longest record seen (its start in the carry counted) bounds the records kept, a subset.
  if (records > 0) await cutter.keep(chunk, end, records, Math.max(scan.longest, known === null ? 0 : longestRow));
  hooks.onProgress(cutter.rows, cutter.bytes);
  const ended = caps.afterChunk(scan.stoppedAt < chunk.length);
  if (ended !== null) return stops.end(ended);
  if (!preview.sent && cutter.rows > preview.firstRows) await preview.send(cutter.rows, false);
}
