/**
 * The end of an export, once its stream has been read to the end: a
 * failure, a cancel or a timeout with no row becomes the export's error and
 * the parts are abandoned; otherwise the preview is sent if it has not been,
 * and the parts are finished (flushed and converted) when the result is to
 * be kept as an artifact. A disk that fills fails only the artifact when a
 * preview can still be given.
 */
import type { PlannedColumn } from '../../columns/column-plan.ts';
import { diskFullError, isDiskFull, SluiceError } from '../../errors.ts';
import type { ExportRequest, ExportResult, ParquetPart } from '../export-types.ts';
import type { CapTracker, Kept } from './cap-tracker.ts';
import type { ExportPreview } from './export-preview.ts';
import type { StopControl } from './stop-control.ts';

/** What finishing needs of a part writer (part-writer.ts, table-part-writer.ts). */
export interface PartSink {
  finish(): Promise<ParquetPart[]>;
  abandon(): Promise<void>;
}

/** The pieces of one export, as the loop wires them; `cutter` counts what was kept. */
export interface ExportPieces<Writer extends PartSink = PartSink, Cutter extends Kept = Kept> {
  writer: Writer;
  preview: ExportPreview;
  cutter: Cutter;
  caps: CapTracker;
  stops: StopControl;
}

type Counts = Pick<ExportResult, 'columns' | 'rows' | 'bytes' | 'cappedBy'>;

const DISK_FULL = 'The server ran out of disk space for artifacts; nothing partial was kept.';

/** `failure` is what went wrong during the stream, ours or the server's (not the cancel we asked for); null when nothing did. */
export async function finishExport(pieces: ExportPieces, failure: unknown, request: ExportRequest, columns: PlannedColumn[]): Promise<ExportResult> {
  const { writer, preview, cutter, caps, stops } = pieces;
  const counts = (): Counts => ({ columns, rows: cutter.rows, bytes: cutter.bytes, cappedBy: caps.cappedBy });
  if (failure !== null && isDiskFull(failure)) {
    await writer.abandon();
    return storageFailed(preview, counts());
  }
  if (failure !== null || stops.reason === 'cancel') {
    await writer.abandon();
    // As it came: the driver maps its engine's errors (a SQLSTATE is the engine's to name), then toSluiceError the rest.
    if (failure !== null) throw failure;
    throw new SluiceError('QUERY_CANCELLED', 'The query was cancelled.');
  }
  if (stops.cutByDeadline) caps.deadlineCut();
  if (caps.cappedBy === 'maxDuration' && cutter.rows === 0) {
    await writer.abandon();
    const limitMs = request.limits.maxDurationMs;
    throw new SluiceError('QUERY_TIMEOUT', `The query returned no row within ${limitMs} ms and was stopped.`, { limitMs });
  }
  return deliver(writer, preview, counts(), request);
}

/** Sends the preview if the stream never filled it, and keeps the parts when the result is to be an artifact. */
async function deliver(writer: PartSink, preview: ExportPreview, counts: Counts, request: ExportRequest): Promise<ExportResult> {
  const allInPreview = !preview.sent && counts.cappedBy === null;
  if (!preview.sent) await preview.send(counts.rows, allInPreview);
  // A preview its size bounds cut (rows left out, or a value cut) is not the whole result: under "auto" the artifact holds it.
  const shown = { previewShown: preview.shown.rows, previewBounded: preview.shown.bounded };
  const completeInPreview = allInPreview && !shown.previewBounded;
  const keep = request.materialize === 'always' || (request.materialize === 'auto' && !completeInPreview);
  if (!keep) {
    await writer.abandon();
    return { ...counts, ...shown, completeInPreview, parts: null, storageFailure: null };
  }
  try {
    return { ...counts, ...shown, completeInPreview, parts: await writer.finish(), storageFailure: null };
  } catch (error) {
    if (!isDiskFull(error)) throw error;
    await writer.abandon();
    return storageFailed(preview, counts);
  }
}

/** With a preview to give, the query still succeeds and only the artifact fails; without one, the query fails. */
function storageFailed(preview: ExportPreview, counts: Counts): ExportResult {
  if (!preview.sent) throw diskFullError(DISK_FULL);
  const { rows, bounded } = preview.shown;
  return { ...counts, previewShown: rows, previewBounded: bounded, completeInPreview: false, parts: null, storageFailure: DISK_FULL };
}
