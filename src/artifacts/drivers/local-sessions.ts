/**
 * Sessions and usage on the local store. A copy adds references to the same
 * bytes (physical usage unchanged, logical usage up, checked against the
 * quota first); retiring a session releases exactly its own references, by
 * the (principal, session) index, so its cost follows its size alone.
 */
import { SluiceError } from '../../errors.ts';
import type { SessionCopyResult, SessionRelease, Usage } from '../types.ts';
import { newArtifactId } from './local-commit.ts';
import type { LocalContext } from './local-layout.ts';

export function copySession(ctx: LocalContext, principal: string, source: string, target: string, ttlSeconds: number): SessionCopyResult {
  if (source === target) throw new SluiceError('VALIDATION_ERROR', 'targetSessionId must differ from the source session.');
  const nowIso = ctx.now().toISOString();
  const rows = ctx.rows.inSession(principal, source).filter((r) => r.expires_at > nowIso);
  const added = rows.reduce((sum, r) => sum + r.size_bytes, 0);
  const usage = ctx.rows.principalUsage(principal);
  if (usage.logical_bytes + added > ctx.principalQuotaBytes) {
    throw new SluiceError('QUOTA_EXCEEDED', `Copying ${rows.length} artifact(s) (${added} bytes) would pass the quota of ${ctx.principalQuotaBytes} bytes.`);
  }
  const created = ctx.now();
  const mapping = rows.map((r) => ({ sourceArtifactId: r.id, targetArtifactId: newArtifactId() }));
  ctx.db.transaction(() => {
    rows.forEach((row, i) => {
      const meta = ctx.rows.toMeta(row);
      ctx.rows.addBlobRef(row.hash);
      ctx.rows.insertArtifact(
        {
          ...meta,
          id: mapping[i]!.targetArtifactId,
          sessionId: target,
          createdAt: created.toISOString(),
          expiresAt: new Date(created.getTime() + ttlSeconds * 1000).toISOString(),
        },
        row.hash,
      );
    });
  })();
  return { mapping };
}

export function retireSession(ctx: LocalContext, principal: string, sessionId: string): SessionRelease {
  const rows = ctx.rows.inSession(principal, sessionId);
  ctx.db.transaction(() => {
    for (const row of rows) ctx.rows.release(row, 'DELETED');
  })();
  return { releasedArtifacts: rows.length, releasedBytes: rows.reduce((sum, r) => sum + r.size_bytes, 0) };
}

export function usageOf(ctx: LocalContext, principal: string): Usage {
  const mine = ctx.rows.principalUsage(principal);
  const all = ctx.rows.workspaceUsage();
  return {
    principal: { artifacts: mine.artifacts, logicalBytes: mine.logical_bytes, quotaBytes: ctx.principalQuotaBytes },
    workspace: { artifacts: all.artifacts, physicalBytes: all.physical_bytes, quotaBytes: ctx.workspaceQuotaBytes },
  };
}
