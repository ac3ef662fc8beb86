/**
 * Parts in an S3-compatible bucket, `<prefix>/objects/<location>/<name>`,
 * shared by every replica. Uploads (s3-upload.ts) stream from the local
 * file through the hash check, so a wrong reference is never stored. Every
 * upload writes keys of its own location, so two replicas committing the
 * same content never touch each other's objects and neither needs a lock.
 * Reads go through the bounded local PartCache, keyed by SHA-256: a replica
 * downloads equal bytes once, whichever upload they came from, and DuckDB
 * reads the local copy. Deleting an upload leaves the cache alone: a cached
 * copy is verified content another upload may share, and it ages out like
 * any other. Apart from that cache, reading the file to upload is the
 * store's one use of the local disk.
 */
import type { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ByteStore, PartRef } from './byte-store.ts';
import { OBJECTS_DIR, checkExpiry, checkLocation, newLocation, partKey, partNotFound } from './part-address.ts';
import type { PartCache } from './part-cache.ts';
import { deleteUnder, listS3Locations, listS3Parts } from './s3-locations.ts';
import { uploadPart } from './s3-upload.ts';
import { guarded } from './storage-errors.ts';

export interface S3BytesOptions {
  client: S3Client;
  bucket: string;
  /** Key prefix without slashes at either end; empty for the bucket's root. */
  prefix: string;
  cache: PartCache;
  /** Size of one multipart chunk; S3 wants at least 5 MiB. */
  partSize?: number;
  /** Parts up to this size go up as one streamed PUT; larger ones as a multipart upload. */
  singlePutMaxBytes?: number;
  /** The signing clock of download links (tests sign in the past to see them expire). */
  now?: () => Date;
}

/** The objects of one store: its bucket, and the key prefix its uploads are under. */
interface S3Objects {
  client: S3Client;
  bucket: string;
  /** `<prefix>/objects/`, or `objects/` at the bucket's root. */
  root: string;
}

export function createS3Bytes(options: S3BytesOptions): ByteStore {
  const { client, bucket, cache } = options;
  const objects: S3Objects = { client, bucket, root: `${options.prefix === '' ? '' : `${options.prefix}/`}${OBJECTS_DIR}/` };
  const { root } = objects;
  return {
    capabilities: { presign: true },
    newLocation,
    putPart: (part, localFile) => guarded(async () => uploadPart({ client, bucket, key: root + partKey(part) }, part, localFile, options)),
    localPath: (part) =>
      guarded(async () => {
        // The key is checked before the cache is asked, so a bad reference fails even when its hash is cached.
        const key = root + partKey(part);
        return cache.acquire(part.sha256, part.bytes, () => openObject(objects, key));
      }),
    deleteLocation: (location) => guarded(() => deleteUnder(client, bucket, `${root}${checkLocation(location)}/`)),
    listParts: (location) => guarded(() => listS3Parts(client, bucket, `${root}${checkLocation(location)}/`)),
    openPart: (part) => guarded(() => openObject(objects, root + partKey(part))),
    listLocations: (page) => guarded(() => listS3Locations(client, bucket, root, page)),
    presignGet: (part, expiresInSeconds) => guarded(() => presignPart(objects, part, expiresInSeconds, options.now)),
    probe: () => guarded(() => probeBucket(objects)),
    close: () => client.destroy(),
  };
}

/** A part's object as a stream; a key that is not there is the part missing. */
async function openObject({ client, bucket }: S3Objects, key: string): Promise<Readable> {
  try {
    return (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body as Readable;
  } catch (error) {
    throw isMissingKey(error) ? partNotFound() : error;
  }
}

function isMissingKey(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  // A missing bucket has its own name on a GET; any other 404 is the key.
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || (e.name !== 'NoSuchBucket' && e.$metadata?.httpStatusCode === 404);
}

function presignPart({ client, bucket, root }: S3Objects, part: PartRef, expiresInSeconds: number, now: (() => Date) | undefined): Promise<string> {
  return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: root + partKey(part) }), {
    expiresIn: checkExpiry(expiresInSeconds),
    ...(now === undefined ? {} : { signingDate: now() }),
  });
}

/** One listing of at most one key: the bucket answers and these credentials may read it. */
async function probeBucket({ client, bucket, root }: S3Objects): Promise<void> {
  await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: root, MaxKeys: 1 }));
}
