/**
 * Importing a session bundle: read and check all of it into a scratch
 * directory (read-bundle.ts, check-parts.ts), then upload each distinct
 * blob to a location of its own and commit every artifact in one catalog
 * transaction (quotas checked for all at once), or nothing. Until that
 * transaction nothing of the import is visible or counted; a refused or
 * failed import removes its uploads, and a crash between upload and
 * commit leaves only uploads no blob references, which the orphan sweep
 * removes. The scratch directory goes however the import ends.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SluiceError } from '../../errors.ts';
import type { ImportedArtifact, SessionCopyResult } from '../../catalog/catalog.ts';
import type { StoreContext } from '../store/store-context.ts';
import { blobHash } from '../store/store-staging.ts';
import { checkParts } from './check-parts.ts';
import type { Manifest } from './manifest.ts';
import { partFile, readBundle } from './read-bundle.ts';

export interface ImportOptions {
  maxBytes: number;
  ttlSeconds: number;
}

function overQuota(message: string): SluiceError {
  return new SluiceError('QUOTA_EXCEEDED', message);
}

export async function importSession(ctx: StoreContext, principal: string, sessionId: string, body: AsyncIterable<Uint8Array>, options: ImportOptions): Promise<SessionCopyResult> {
  const dir = join(ctx.stagingRoot, `import-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  try {
    const manifest = await readBundle(body, {
      dir,
      maxBytes: options.maxBytes,
      // Early, before the parts are read: the transaction checks again, under its locks.
      onManifest: async (m) => {
        const usage = await ctx.catalog.usage(principal);
        const adding = m.artifacts.reduce((sum, a) => sum + a.sizeBytes, 0);
        if (usage.principal.logicalBytes + adding > usage.principal.quotaBytes) {
          throw overQuota(`Importing ${m.artifacts.length} artifact(s) (${adding} bytes) would pass the quota of ${usage.principal.quotaBytes} bytes; nothing was imported.`);
        }
      },
    });
    for (const artifact of manifest.artifacts) await checkParts(ctx.workers, dir, artifact);
    return await commit(ctx, principal, sessionId, dir, manifest, options.ttlSeconds);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function commit(ctx: StoreContext, principal: string, sessionId: string, dir: string, manifest: Manifest, ttlSeconds: number): Promise<SessionCopyResult> {
  const uploads = new Map<string, string>();
  const artifacts: ImportedArtifact[] = [];
  try {
    for (const artifact of manifest.artifacts) {
      const hash = blobHash(artifact.parts);
      let location = uploads.get(hash);
      if (location === undefined) {
        location = ctx.bytes.newLocation();
        uploads.set(hash, location);
        for (const part of artifact.parts) await ctx.bytes.putPart({ location, name: part.name, sha256: part.sha256, bytes: part.bytes }, partFile(dir, part.sha256));
      }
      const { id, sql, datasource, columns, rowCount, coverage, boundedBy } = artifact;
      artifacts.push({ sourceId: id, sql, datasource, columns, rowCount, coverage, boundedBy, blob: { hash, location, parts: artifact.parts, sizeBytes: artifact.sizeBytes } });
    }
  } catch (error) {
    await discard(ctx, [...uploads.values()]);
    throw error;
  }
  ctx.checkpoint('commit:after-upload');
  // No discard if this throws: the transaction may have committed before the connection failed, and the
  // orphan sweep removes the uploads later only if no blob references them.
  const outcome = await ctx.catalog.importArtifacts({ principal, sessionId, ttlSeconds, artifacts });
  if (outcome.decision === 'DENIED') {
    await discard(ctx, [...uploads.values()]);
    throw overQuota(outcome.message);
  }
  const live = new Set(outcome.liveLocations);
  await discard(ctx, [...[...uploads.values()].filter((l) => !live.has(l)), ...outcome.staleLocations]);
  return { mapping: outcome.mapping };
}

/** Best effort: an upload left behind is an orphan the sweep removes later. */
async function discard(ctx: StoreContext, locations: string[]): Promise<void> {
  for (const location of locations) {
    await ctx.bytes.deleteLocation(location).catch((error: unknown) => ctx.log.error(`Could not remove an unneeded upload (the orphan sweep will): ${(error as Error).message}`));
  }
}
