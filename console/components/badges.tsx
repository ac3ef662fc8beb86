/**
 * Completeness at a glance: the status, which cap cut the result and who set
 * it, the artifact decision (with its reason) and the artifact's coverage.
 */
import type { ArtifactDecision, Completeness } from '../api.ts';
import { formatBytes, formatCount } from '../format.ts';

type Tone = 'good' | 'warn' | 'bad' | 'info' | 'plain';

export function Badge({ tone, label, children }: { tone: Tone; label: string; children: string }) {
  return (
    <span class={`badge badge-${tone}`} title={label}>
      <span class="badge-label">{label}</span> {children}
    </span>
  );
}

const STATUS_TONE: Record<Completeness['status'], Tone> = { COMPLETE: 'good', INCOMPLETE: 'warn', UNKNOWN: 'plain' };
const DECISION_TONE: Record<NonNullable<ArtifactDecision>['decision'], Tone> = {
  CREATED: 'good',
  SKIPPED: 'plain',
  DENIED: 'bad',
  FAILED: 'bad',
  CANCELLED: 'warn',
};

export function CompletenessBadges({ completeness, artifact }: { completeness: Completeness; artifact: ArtifactDecision }) {
  const total = completeness.totalRows === null ? 'unknown' : formatCount(completeness.totalRows);
  return (
    <div class="badges" aria-label="Completeness">
      <Badge tone={STATUS_TONE[completeness.status]} label="completeness">{completeness.status}</Badge>
      <Badge tone="plain" label="rows">{`${formatCount(completeness.returnedRows)} of ${total}`}</Badge>
      {completeness.boundedBy !== null ? (
        <Badge tone="warn" label="bounded by">{completeness.limitSetBy ? `${completeness.boundedBy} (set by ${completeness.limitSetBy})` : completeness.boundedBy}</Badge>
      ) : null}
      {artifact !== null ? (
        <Badge tone={DECISION_TONE[artifact.decision]} label="artifact">{artifact.reason ? `${artifact.decision}: ${artifact.reason}` : artifact.decision}</Badge>
      ) : null}
      {artifact?.coverage !== undefined ? <Badge tone={artifact.coverage === 'COMPLETE' ? 'good' : 'warn'} label="coverage">{artifact.coverage}</Badge> : null}
      {artifact?.sizeBytes !== undefined ? <Badge tone="info" label="size">{formatBytes(artifact.sizeBytes)}</Badge> : null}
    </div>
  );
}
