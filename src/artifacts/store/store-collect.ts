/**
 * Collection, by one replica at a time (the holder of the catalog's
 * `collector` lease), in bounded rounds: artifacts past their TTL become
 * tombstones; blobs nobody has referenced for a grace period lose their
 * bytes, then their catalog rows (a blob revived meanwhile keeps both: the
 * catalog refuses to drop it); tombstones older than the retention are
 * purged; and a page of stored uploads is checked for orphans, uploads no
 * blob references (a replica died between its upload and its commit),
 * removed once older than the grace period. The sweep resumes where the
 * previous round stopped, so no round walks the whole store.
 */
import type { CollectionReport } from '../types.ts';
import type { StoreContext } from './store-context.ts';

const LEASE = 'collector';
const LEASE_MS = 5 * 60_000;
/** Longer than any commit takes between its upload and its catalog row: younger unreferenced bytes are left alone. */
export const GRACE_MS = 15 * 60_000;
/** How long a deleted or expired artifact still answers ARTIFACT_EXPIRED or NOT_FOUND as such. */
export const TOMBSTONE_RETENTION_MS = 7 * 24 * 3600_000;
const SWEEP_PAGE = 200;
const QUERY_RETENTION_MS = 3600_000;

const NOTHING: CollectionReport = { ran: false, expired: 0, blobsRemoved: 0, bytesReclaimed: 0, orphansRemoved: 0, tombstonesPurged: 0, more: false };

export function collector(ctx: StoreContext) {
  /** Where the orphan sweep goes on next round; null starts over. */
  let sweepAfter: string | null = null;

  async function sweepOrphans(): Promise<{ removed: number; more: boolean }> {
    const page = await ctx.bytes.listLocations({ after: sweepAfter ?? undefined, limit: SWEEP_PAGE });
    const cutoff = ctx.now().getTime() - GRACE_MS;
    let removed = 0;
    for (const { location, modifiedAt } of page.locations) {
      if (modifiedAt.getTime() > cutoff) continue;
      if ((await ctx.catalog.blobAtLocation(location)) !== undefined) continue;
      await ctx.bytes.deleteLocation(location);
      removed++;
    }
    sweepAfter = page.next;
    return { removed, more: page.next !== null };
  }

  return async function collect(limits: { maxBlobs: number; maxBytes: number }): Promise<CollectionReport> {
    if (!(await ctx.catalog.tryLease(LEASE, ctx.replica, LEASE_MS))) return NOTHING;
    const expired = await ctx.catalog.expireRound(limits.maxBlobs);
    const now = ctx.now().getTime();
    const candidates = await ctx.catalog.unreferencedBlobs(new Date(now - GRACE_MS), limits.maxBlobs);
    let removed = 0;
    let bytes = 0;
    for (const blob of candidates) {
      if (bytes >= limits.maxBytes) break;
      // Bytes first: a crash between the two leaves a row whose bytes are gone, which the next round drops.
      await ctx.bytes.deleteLocation(blob.location);
      ctx.checkpoint('collect:after-delete');
      if (await ctx.catalog.dropBlob(blob.hash, blob.location)) {
        removed++;
        bytes += blob.sizeBytes;
      }
    }
    const purged = await ctx.catalog.purgeTombstones(new Date(now - TOMBSTONE_RETENTION_MS), limits.maxBlobs);
    // Queries are answered for an hour after they end, as on a single replica.
    await ctx.catalog.purgeQueries(new Date(now - QUERY_RETENTION_MS), limits.maxBlobs);
    const orphans = await sweepOrphans();
    await ctx.catalog.maintain();
    return {
      ran: true,
      expired: expired.count,
      blobsRemoved: removed,
      bytesReclaimed: bytes,
      orphansRemoved: orphans.removed,
      tombstonesPurged: purged.count,
      more: expired.more || candidates.length === limits.maxBlobs || bytes >= limits.maxBytes || purged.more,
    };
  };
}
