/**
 * Commit of a staged export: quota checks, the move of the bytes into their
 * content-addressed place (one rename), and one catalog transaction for the
 * reference, the blob and the counters. A crash after the rename and before
 * the transaction leaves only unreferenced bytes, which the collector
 * removes; a crash before the rename leaves a staging directory, which the
 * start-up sweep removes. Nothing half-written is ever visible.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ArtifactMeta, CommitOutcome, Owner, StagedResult } from '../types.ts';
import { objectDir, type LocalContext } from './local-layout.ts';

export function newArtifactId(): string {
  return `art_${randomUUID().replaceAll('-', '')}`;
}

function denied(message: string): CommitOutcome {
  return { decision: 'DENIED', reason: 'QUOTA_EXCEEDED', message };
}

export function commitStaged(ctx: LocalContext, owner: Owner, staged: StagedResult, ttlSeconds: number): CommitOutcome {
  const hash = createHash('sha256')
    .update(staged.parts.map((p) => p.sha256).join('\n'))
    .digest('hex');
  const size = staged.parts.reduce((sum, p) => sum + p.bytes, 0);
  const known = ctx.rows.blob(hash);
  // A row whose bytes a crashed collection already moved away counts as absent: this export supplies them again.
  const existing = known !== undefined && existsSync(objectDir(ctx, known.location)) ? known : undefined;
  const usage = ctx.rows.principalUsage(owner.principal);
  if (usage.logical_bytes + size > ctx.principalQuotaBytes) {
    rmSync(staged.stagingDir, { recursive: true, force: true });
    return denied(`This artifact (${size} bytes) would take ${owner.principal} past the quota of ${ctx.principalQuotaBytes} bytes; delete artifacts or retire a session.`);
  }
  if (known === undefined && ctx.rows.workspaceUsage().physical_bytes + size > ctx.workspaceQuotaBytes) {
    rmSync(staged.stagingDir, { recursive: true, force: true });
    return denied(`The workspace has no room for ${size} more bytes (quota ${ctx.workspaceQuotaBytes}).`);
  }
  const location = join(hash.slice(0, 2), hash);
  if (existing === undefined) {
    mkdirSync(join(ctx.objectsRoot, hash.slice(0, 2)), { recursive: true });
    // Bytes left by a crash between an earlier rename and its catalog entry are the same bytes: replace them.
    rmSync(objectDir(ctx, location), { recursive: true, force: true });
    renameSync(staged.stagingDir, objectDir(ctx, location));
    ctx.checkpoint('commit:after-rename');
  } else {
    // Identical content is stored once: this export's copy is not needed.
    rmSync(staged.stagingDir, { recursive: true, force: true });
  }
  const created = ctx.now();
  const meta: ArtifactMeta = {
    id: newArtifactId(),
    state: 'COMMITTED',
    principal: owner.principal,
    sessionId: owner.sessionId,
    sql: staged.sql,
    datasource: staged.datasource,
    columns: staged.columns,
    rowCount: staged.rowCount,
    sizeBytes: size,
    coverage: staged.coverage,
    boundedBy: staged.boundedBy,
    createdAt: created.toISOString(),
    expiresAt: new Date(created.getTime() + ttlSeconds * 1000).toISOString(),
  };
  ctx.db.transaction(() => {
    if (ctx.rows.blob(hash) === undefined) ctx.rows.insertBlob(hash, location, staged.parts, size);
    else ctx.rows.addBlobRef(hash);
    ctx.rows.insertArtifact(meta, hash);
  })();
  return { decision: 'CREATED', artifact: meta };
}
