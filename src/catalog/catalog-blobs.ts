/**
 * Taking references to a blob inside a commit's transaction: a new blob is
 * inserted (and counted in the workspace's physical bytes), a referenced one
 * gains references, and an unreferenced one (a collector may be deleting its
 * bytes at this very moment) is revived with the committer's own upload in
 * place of the old bytes. Written once, for single commits and imports.
 */
import type { BlobRecord } from './catalog.ts';
import type { CatalogTx } from './catalog-db.ts';
import { num, type BlobRow } from './catalog-rows.ts';

export interface BlobTaken {
  /** Where the blob's bytes live now; the committer's own upload is garbage unless it is this location. */
  liveLocation: string;
  /** Bytes that backed the blob before it was revived: nothing references them any more. */
  staleLocation: string | null;
}

export function knownBlob(tx: CatalogTx, hash: string): Promise<BlobRow | undefined> {
  return tx.all<BlobRow>('SELECT hash, location, parts, size_bytes, refs FROM blobs WHERE hash = ?', [hash]).then((rows) => rows[0]);
}

export async function takeBlob(tx: CatalogTx, blob: BlobRecord, known: BlobRow | undefined, references: number): Promise<BlobTaken> {
  if (known === undefined) {
    await tx.run('INSERT INTO blobs (hash, location, parts, size_bytes, refs, released_at) VALUES (?, ?, ?, ?, ?, NULL)', [blob.hash, blob.location, JSON.stringify(blob.parts), blob.sizeBytes, references]);
    await tx.run('UPDATE workspace_usage SET blobs = blobs + 1, physical_bytes = physical_bytes + ? WHERE id = 1', [blob.sizeBytes]);
    return { liveLocation: blob.location, staleLocation: null };
  }
  if (num(known.refs) > 0) {
    await tx.run('UPDATE blobs SET refs = refs + ? WHERE hash = ?', [references, blob.hash]);
    return { liveLocation: known.location, staleLocation: null };
  }
  await tx.run('UPDATE blobs SET location = ?, parts = ?, refs = ?, released_at = NULL WHERE hash = ?', [blob.location, JSON.stringify(blob.parts), references, blob.hash]);
  return { liveLocation: blob.location, staleLocation: known.location === blob.location ? null : known.location };
}
