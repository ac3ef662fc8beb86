/**
 * An artifact the caller may read, and its parts as local files: the
 * catalog is asked every time (a deleted or expired artifact, or another
 * caller's, goes no further), and the parts are leased from the byte store
 * (downloaded into the cache and checked against their hash first when they
 * live in a bucket) until DuckDB is done with them.
 */
import { SluiceError } from '../../errors.ts';
import type { LeaseOptions, PartLease, PartRef } from '../bytes/byte-store.ts';
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

/**
 * Leases parts of a blob (all of them, or `count` from `first`), in order; the caller releases them
 * when DuckDB is done. With `checkBeside`, the parts not hashed yet in this process are hashed while
 * the caller reads them, and `checked` says when all of them are known good (byte-store.ts, LeaseOptions).
 */
export async function leaseParts(
  ctx: StoreContext,
  blob: BlobRecord,
  first = 0,
  count = blob.parts.length,
  options: LeaseOptions = {},
): Promise<{ files: (PartFile & { sha256: string })[]; release: () => void; checked: Promise<void> }> {
  const leases: PartLease[] = [];
  const release = () => leases.forEach((l) => l.release());
  const wanted = blob.parts.slice(first, first + count);
  try {
    for (const ref of partRefs(blob).slice(first, first + count)) leases.push(await ctx.bytes.localPath(ref, options));
  } catch (error) {
    release();
    throw error;
  }
  const files = wanted.map((p, i) => ({ path: leases[i]!.path, rows: p.rows, sha256: p.sha256 }));
  const checked = Promise.all(leases.map((l) => l.checked)).then(() => undefined);
  checked.catch(() => undefined);
  return { files, release, checked };
}

/**
 * What a read over parts leased with `checkBeside` may answer: nothing before every part is known
 * good. A failed check wins over the read's own error, since damaged bytes may fail DuckDB too.
 */
export async function whenChecked<T>(reading: Promise<T>, checked: Promise<void>): Promise<T> {
  const [read, check] = await Promise.allSettled([reading, checked]);
  if (check.status === 'rejected') throw check.reason;
  if (read.status === 'rejected') throw read.reason;
  return read.value;
}
