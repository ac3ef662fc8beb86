/**
 * An artifact the caller may read, and its parts as local files: the
 * catalog is asked every time (a deleted or expired artifact, or another
 * caller's, goes no further), and the parts are leased from the byte store
 * (downloaded into the cache and checked against their hash first when they
 * live in a bucket) until DuckDB is done with them.
 */
import { SluiceError } from '../../errors.ts';
import type { PartLease, PartRef } from '../bytes/byte-store.ts';
import type { ArtifactRecord, BlobRecord } from '../../catalog/catalog.ts';
import type { PartFile } from '../read-sql.ts';
import type { StoreContext } from './store-context.ts';

export async function readable(ctx: StoreContext, principal: string, id: string): Promise<ArtifactRecord & { blob: BlobRecord }> {
  const record = await ctx.catalog.find(principal, id);
  if (record === undefined || record.meta.state === 'DELETED') throw new SluiceError('NOT_FOUND', `No artifact "${id}" exists for this caller.`);
  if (record.meta.state === 'EXPIRED') {
    throw new SluiceError('ARTIFACT_EXPIRED', `Artifact "${id}" expired at ${record.meta.expiresAt}; run the query again to recreate it.`, { expiresAt: record.meta.expiresAt });
  }
  if (record.blob === null) throw new SluiceError('ARTIFACT_CORRUPT', `The bytes of artifact "${id}" are missing from the store.`);
  return record as ArtifactRecord & { blob: BlobRecord };
}

export function partRefs(blob: BlobRecord): PartRef[] {
  return blob.parts.map((p) => ({ location: blob.location, name: p.name, sha256: p.sha256, bytes: p.bytes }));
}

/** Leases parts of a blob (all of them, or `count` from `first`), in order; the caller releases them when DuckDB is done. */
export async function leaseParts(ctx: StoreContext, blob: BlobRecord, first = 0, count = blob.parts.length): Promise<{ files: (PartFile & { sha256: string })[]; release: () => void }> {
  const leases: PartLease[] = [];
  const release = () => leases.forEach((l) => l.release());
  const wanted = blob.parts.slice(first, first + count);
  try {
    for (const ref of partRefs(blob).slice(first, first + count)) leases.push(await ctx.bytes.localPath(ref));
  } catch (error) {
    release();
    throw error;
  }
  const files = wanted.map((p, i) => ({ path: leases[i]!.path, rows: p.rows, sha256: p.sha256 }));
  return { files, release };
}
