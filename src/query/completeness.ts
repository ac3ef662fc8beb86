/**
 * The decision matrix of the contract in one place: from what the export
 * reported, whether the preview is the whole result, which limit bounded it
 * (and who set that limit), and what became of the artifact.
 */
import type { Cap, ExportResult, Materialize } from '../worker/export-types.ts';
import type { LimitSource } from '../vocabulary.ts';
import type { ArtifactDecision, Completeness } from './query-types.ts';

/** Who set each cap, so the one that fires can be named. */
export type LimitOrigins = Record<Cap, LimitSource>;

function origin(origins: LimitOrigins, cap: Cap | null): LimitSource | null {
  return cap === null ? null : origins[cap];
}

export function finalCompleteness(result: ExportResult, previewRows: number, origins: LimitOrigins): Completeness {
  const returnedRows = Math.min(result.rows, previewRows);
  if (result.storageFailure !== null) {
    // The export stopped early: the preview stands, the rest is unknown.
    return { status: 'INCOMPLETE', returnedRows, totalRows: null, boundedBy: null, limitSetBy: null };
  }
  if (result.completeInPreview) {
    return { status: 'COMPLETE', returnedRows, totalRows: result.rows, boundedBy: null, limitSetBy: null };
  }
  // A cap stopped the result short: the total is unknown, and the cap (not the preview size) is what the caller must know.
  const boundedBy: Cap = result.cappedBy ?? 'previewRows';
  return {
    status: 'INCOMPLETE',
    returnedRows,
    totalRows: result.cappedBy === null ? result.rows : null,
    boundedBy,
    limitSetBy: origin(origins, boundedBy),
  };
}

export function runningCompleteness(previewShown: number | null, previewComplete: boolean, origins: LimitOrigins): Completeness {
  if (previewShown === null) return { status: 'UNKNOWN', returnedRows: 0, totalRows: null, boundedBy: null, limitSetBy: null };
  if (previewComplete) return { status: 'COMPLETE', returnedRows: previewShown, totalRows: previewShown, boundedBy: null, limitSetBy: null };
  return { status: 'INCOMPLETE', returnedRows: previewShown, totalRows: null, boundedBy: 'previewRows', limitSetBy: origins.previewRows };
}

/** The decision when no artifact was kept. */
export function skippedDecision(materialize: Materialize): ArtifactDecision {
  if (materialize === 'never') {
    return { decision: 'SKIPPED', reason: 'MATERIALIZE_NEVER', message: 'materialize is "never": only the preview was fetched.' };
  }
  return { decision: 'SKIPPED', reason: 'PREVIEW_COMPLETE', message: 'The preview holds the complete result, so no artifact was needed.' };
}
