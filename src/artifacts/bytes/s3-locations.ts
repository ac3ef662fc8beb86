/**
 * Uploads as a bucket holds them: one upload is the keys under
 * `<root><location>/`, which S3 lists next to each other, so a listing in
 * key order groups into uploads as it goes. A page stops at its limit of
 * uploads (it reads one key past the last to know that upload is whole);
 * deleting an upload lists and deletes its keys until none are left.
 */
import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { LocationPage, StoredPart } from './byte-store.ts';
import { checkCursor, checkLimit, locationOfKey } from './part-address.ts';

/** What one ListObjectsV2 or DeleteObjects call takes at most (tests pass less, to see uploads span calls). */
const BATCH = 1000;

/**
 * The first key after every key of `location`: '0' is the character right
 * after '/', so `<location>/…` all sort before `<location>0` and nothing a
 * store writes sorts between.
 */
const pastLocation = (root: string, location: string) => `${root}${location}0`;

export async function listS3Locations(
  client: S3Client,
  Bucket: string,
  root: string,
  page: { after?: string | undefined; limit: number },
  batch = BATCH,
): Promise<LocationPage> {
  const after = checkCursor(page.after);
  const limit = checkLimit(page.limit);
  const locations: LocationPage['locations'] = [];
  let StartAfter = after === undefined ? undefined : pastLocation(root, after);
  for (;;) {
    const out = await client.send(new ListObjectsV2Command({ Bucket, Prefix: root, MaxKeys: batch, ...(StartAfter === undefined ? {} : { StartAfter }) }));
    const objects = out.Contents ?? [];
    for (const object of objects) {
      const location = locationOfKey((object.Key ?? '').slice(root.length));
      if (location === undefined) continue;
      const modifiedAt = object.LastModified ?? new Date(0);
      const last = locations.at(-1);
      if (last?.location === location) {
        if (modifiedAt > last.modifiedAt) last.modifiedAt = modifiedAt;
        continue;
      }
      // The first key of one more upload: the page is full, and its last upload is whole.
      if (locations.length === limit) return { locations, next: last?.location ?? null };
      locations.push({ location, modifiedAt });
    }
    const lastKey = objects.at(-1)?.Key;
    if (out.IsTruncated !== true || lastKey === undefined) return { locations, next: null };
    StartAfter = lastKey;
  }
}

export async function deleteUnder(client: S3Client, Bucket: string, Prefix: string, batch = BATCH): Promise<void> {
  // Listed afresh each round: deleted keys are gone from the next listing, so no cursor has to outlive a deletion.
  for (;;) {
    const out = await client.send(new ListObjectsV2Command({ Bucket, Prefix, MaxKeys: batch }));
    const Objects = (out.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [{ Key: object.Key }]));
    if (Objects.length === 0) return;
    const result = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }));
    const refused = result.Errors?.[0];
    // A key the service would not delete, named by its code only (storage-errors.ts decides what it means).
    if (refused !== undefined) throw Object.assign(new Error('The storage refused to delete an object.'), { name: refused.Code ?? 'DeleteRefused' });
    if (out.IsTruncated !== true) return;
  }
}

/** The objects of one upload, by name below its prefix (an upload holds a handful of parts; listed whole). */
export async function listS3Parts(client: S3Client, Bucket: string, Prefix: string, batch = BATCH): Promise<StoredPart[]> {
  const parts: StoredPart[] = [];
  let ContinuationToken: string | undefined;
  do {
    const out = await client.send(new ListObjectsV2Command({ Bucket, Prefix, MaxKeys: batch, ...(ContinuationToken === undefined ? {} : { ContinuationToken }) }));
    for (const object of out.Contents ?? []) {
      if (object.Key !== undefined) parts.push({ name: object.Key.slice(Prefix.length), bytes: object.Size ?? 0 });
    }
    ContinuationToken = out.IsTruncated === true ? out.NextContinuationToken : undefined;
  } while (ContinuationToken !== undefined);
  return parts;
}
