/**
 * Usage against the quota as a meter; with a session chosen, what that
 * session holds (GET /api/usage?sessionId=), and for admins the workspace.
 */
import type { Schemas } from '../api.ts';
import { formatBytes, formatCount } from '../format.ts';

export type Usage = Schemas['UsageEnvelope']['data'];

/** Tiny shares stay visible: "<0.01%" rather than a zero that hides them. */
function percentText(used: number, quota: number): string {
  const percent = quota > 0 ? (100 * used) / quota : 0;
  if (used > 0 && percent < 0.01) return '<0.01%';
  return `${percent.toFixed(percent < 10 ? 2 : 0)}%`;
}

export function UsageMeter({ usage }: { usage: Usage }) {
  const { logicalBytes, quotaBytes, artifacts } = usage.principal;
  return (
    <div class="usage">
      <label class="usage-label">
        <span>
          Quota used: {formatBytes(logicalBytes)} of {formatBytes(quotaBytes)} ({percentText(logicalBytes, quotaBytes)}), {formatCount(artifacts)} artifacts
        </span>
        <meter min={0} max={quotaBytes} low={quotaBytes * 0.7} high={quotaBytes * 0.9} optimum={0} value={logicalBytes} />
      </label>
      {usage.session !== undefined ? (
        <span class="session-usage">
          Session {usage.session.sessionId}: {formatBytes(usage.session.logicalBytes)}, {formatCount(usage.session.artifacts)} artifacts
        </span>
      ) : null}
      {usage.workspace !== undefined ? (
        <span class="muted">
          Workspace: {formatBytes(usage.workspace.physicalBytes)} of {formatBytes(usage.workspace.quotaBytes)} stored, {formatCount(usage.workspace.artifacts)} artifacts
        </span>
      ) : null}
    </div>
  );
}
