/**
 * The decision matrix of the contract in one place: from what the export
 * reported, whether the preview is the whole result, which limit bounded it
 * (and who set that limit), and what became of the artifact.
 */
import type { Cap, ExportResult, Materialize } from '../worker/export-types.ts';
import type { LimitSource, PreviewBound } from '../vocabulary.ts';
import type { ArtifactDecision, Completeness } from './query-types.ts';

/** Who set each limit, so the one that bounded the preview can be named. */
export type LimitOrigins = Record<PreviewBound, LimitSource>;

function origin(origins: LimitOrigins, bound: PreviewBound | null): LimitSource | null {
  return bound === null ? null : origins[bound];
}

/**
 * What bounded a preview that is not the whole result. A cap that cut the
 * result itself comes first; then the preview's size bounds (bytes, or a cut
 * cell), which cut a preview inside its row count; then the row count.
 * Reading only the preview, its row count is what the export's row cap
 * enforces, so the size bounds still come before it.
 */
function previewBound(cappedBy: Cap | null, sizeBounded: boolean): PreviewBound {
  if (sizeBounded && (cappedBy === null || cappedBy === 'previewRows')) return 'previewBytes';
  return cappedBy ?? 'previewRows';
}

export function finalCompleteness(result: ExportResult, origins: LimitOrigins): Completeness {
  const returnedRows = result.previewShown;
  if (result.storageFailure !== null) {
    // The export stopped early: the preview stands, the rest is unknown.
    return { status: 'INCOMPLETE', returnedRows, totalRows: null, boundedBy: null, limitSetBy: null };
  }
  if (result.completeInPreview) {
    return { status: 'COMPLETE', returnedRows, totalRows: result.rows, boundedBy: null, limitSetBy: null };
  }
  // A cap stopped the result short: the total is unknown, and the cap (not the preview size) is what the caller must know.
  const boundedBy = previewBound(result.cappedBy, result.previewBounded);
  return {
    status: 'INCOMPLETE',
    returnedRows,
    totalRows: result.cappedBy === null ? result.rows : null,
    boundedBy,
    limitSetBy: origin(origins, boundedBy),
  };
}

export function runningCompleteness(previewShown: number | null, previewComplete: boolean, origins: LimitOrigins, sizeBounded = false): Completeness {
  if (previewShown === null) return { status: 'UNKNOWN', returnedRows: 0, totalRows: null, boundedBy: null, limitSetBy: null };
  if (previewComplete) return { status: 'COMPLETE', returnedRows: previewShown, totalRows: previewShown, boundedBy: null, limitSetBy: null };
  const boundedBy = sizeBounded ? 'previewBytes' : 'previewRows';
  return { status: 'INCOMPLETE', returnedRows: previewShown, totalRows: null, boundedBy, limitSetBy: origins[boundedBy] };
}

/** The decision when no artifact was kept. */
export function skippedDecision(materialize: Materialize): ArtifactDecision {
  if (materialize === 'never') {
    return { decision: 'SKIPPED', reason: 'MATERIALIZE_NEVER', message: 'materialize is "never": only the preview was fetched.' };
  }
  return { decision: 'SKIPPED', reason: 'PREVIEW_COMPLETE', message: 'The preview holds the complete result, so no artifact was needed.' };
}
