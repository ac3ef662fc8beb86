/**
 * Staging and commit. An export writes its parts into a scratch directory
 * of its own; each part goes up, to a location no other upload uses, as
 * soon as the export has finished it (so the upload runs beside the export,
 * not after it), and commit records the artifact in one catalog transaction
 * that checks and charges the quotas. A crash before the catalog row leaves only an upload nobody
 * references, which the orphan sweep removes after a grace period; a crash
 * before the upload leaves a scratch directory, which the next start of
 * this process removes. Nothing half-written is ever listed or readable.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileStamp } from '../../runtime/digest-file.ts';
import type { CommitOutcome, Owner, ParquetPart, Staging, StagedResult } from '../types.ts';
import type { StoreContext } from './store-context.ts';

/** Equal content, equal hash: the blob of an export is the hash of its parts' hashes, in order. */
export function blobHash(parts: { sha256: string }[]): string {
  return createHash('sha256')
    .update(parts.map((p) => p.sha256).join('\n'))
    .digest('hex');
}

export async function beginStaging(ctx: StoreContext): Promise<Staging> {
  const scratchDir = join(ctx.stagingRoot, randomUUID());
  await mkdir(scratchDir, { recursive: true });
  // Chosen now, before the content is known, so parts go up while the export still runs.
  const location = ctx.bytes.newLocation();
  // Each part's hash as announced, from the moment its upload is queued.
  const queued = new Map<string, string>();
  // One upload at a time, in the order parts were made; the first failure stops the rest and is kept for commit.
  let uploads: Promise<void> = Promise.resolve();
  let uploadFailure: unknown = null;
  let touched = false;
  let settled = false;
  const upload = (part: ParquetPart, hashedAt?: FileStamp) => {
    touched = true;
    queued.set(part.name, part.sha256);
    uploads = uploads.then(async () => {
      if (uploadFailure !== null || settled) return;
      try {
        await ctx.bytes.putPart({ location, name: part.name, sha256: part.sha256, bytes: part.bytes }, join(scratchDir, part.name), { hashedAt });
      } catch (error) {
        uploadFailure = error;
      }
    });
  };
  const discardAll = async () => {
    await uploads;
    if (touched) await discard(ctx, location);
    await rm(scratchDir, { recursive: true, force: true });
  };
  return {
    scratchDir,
    stagePart(part, hashedAt) {
      if (!settled) upload(part, hashedAt);
    },
    async abort() {
      // After a commit (whatever its outcome) the commit owns the upload: aborting then removes nothing.
      if (settled) return;
      settled = true;
      await discardAll();
    },
    async commit(owner, staged, ttlSeconds) {
      if (settled) throw new Error('This staging was already committed or aborted.');
      // Whatever the export made but did not announce goes up now. A part it announced is queued already, its
      // upload perhaps still under way (the last parts usually are): put again, it was hashed and placed twice.
      for (const part of staged.parts) if (queued.get(part.name) !== part.sha256) upload(part);
      await uploads;
      settled = true;
      try {
        if (uploadFailure !== null) {
          await discard(ctx, location);
          throw uploadFailure;
        }
        return await commitUploaded(ctx, location, owner, staged, ttlSeconds);
      } finally {
        await rm(scratchDir, { recursive: true, force: true });
      }
    },
  };
}

async function commitUploaded(ctx: StoreContext, location: string, owner: Owner, staged: StagedResult, ttlSeconds: number): Promise<CommitOutcome> {
  const hash = blobHash(staged.parts);
  const sizeBytes = staged.parts.reduce((sum, p) => sum + p.bytes, 0);
  ctx.checkpoint('commit:after-upload');
  // No discard if this throws: the commit may have landed before the connection failed, and the
  // orphan sweep removes the upload later only if no blob references it.
  const outcome = await ctx.catalog.commit({
    owner,
    blob: { hash, location, parts: staged.parts, sizeBytes },
    sql: staged.sql,
    datasource: staged.datasource,
    columns: staged.columns,
    rowCount: staged.rowCount,
    coverage: staged.coverage,
    boundedBy: staged.boundedBy,
    ttlSeconds,
  });
  // The same content was already stored (or the commit was refused): this upload is not needed.
  if (outcome.decision !== 'CREATED' || outcome.liveLocation !== location) await discard(ctx, location);
  if (outcome.decision !== 'CREATED') return outcome;
  return { decision: 'CREATED', artifact: outcome.artifact };
}

/** Best effort: an upload left behind is an orphan the sweep removes later. */
async function discard(ctx: StoreContext, location: string): Promise<void> {
  await ctx.bytes.deleteLocation(location).catch((error: unknown) => ctx.log.error(`Could not remove an unneeded upload (the orphan sweep will): ${(error as Error).message}`));
}
