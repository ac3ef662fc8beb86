/**
 * Parts in an S3-compatible bucket, `<prefix>/objects/<location>/<name>`,
 * shared by every replica. Uploads stream from the local file (one PUT, or
 * a multipart upload for a very large part; never the whole part in memory)
 * through the hash check, which fails before the upload completes, so a
 * wrong reference is never stored. Every upload writes keys of its own location, so two replicas
 * committing the same content never touch each other's objects and neither
 * needs a lock. Reads go through the bounded local PartCache, keyed by
 * SHA-256: a replica downloads equal bytes once, whichever upload they came
 * from, and DuckDB reads the local copy. Deleting an upload leaves the cache
 * alone: a cached copy is verified content another upload may share, and it
 * ages out like any other. Reading the local file to upload is this
 * module's one use of the local disk.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ByteStore, PartRef } from './byte-store.ts';
import { contentCheck, PART_READ_BYTES } from './content-check.ts';
import { OBJECTS_DIR, checkExpiry, checkLocation, newLocation, partKey, partNotFound } from './part-address.ts';
import type { PartCache } from './part-cache.ts';
import { deleteUnder, listS3Locations } from './s3-locations.ts';
import { guarded, storageError } from './storage-errors.ts';

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

/** Two chunks in flight of 8 MiB each: at most 16 MiB of a part in memory per upload. */
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
/**
 * An export seals parts of about 16 MiB. One PUT of a file of known length
 * streams it with nothing buffered, in one request, where a multipart upload
 * of the same part takes three or four and has the server assemble them
 * (s3rver reads them all back to do it). S3 takes up to 5 GiB in one PUT.
 */
const DEFAULT_SINGLE_PUT_MAX_BYTES = 64 * 1024 * 1024;
const PUT_ATTEMPTS = 3;
const PUT_RETRY_DELAY_MS = 200;
const PARQUET = 'application/vnd.apache.parquet';

function isMissingKey(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  // A missing bucket has its own name on a GET; any other 404 is the key.
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || (e.name !== 'NoSuchBucket' && e.$metadata?.httpStatusCode === 404);
}

export function createS3Bytes(options: S3BytesOptions): ByteStore {
  const { client, bucket: Bucket, cache } = options;
  const root = `${options.prefix === '' ? '' : `${options.prefix}/`}${OBJECTS_DIR}/`;

  async function open(Key: string): Promise<Readable> {
    try {
      return (await client.send(new GetObjectCommand({ Bucket, Key }))).Body as Readable;
    } catch (error) {
      throw isMissingKey(error) ? partNotFound() : error;
    }
  }

  /** The part's file through its content check, which holds the last bytes back until they are verified. */
  function checkedBody(part: PartRef, localFile: string): { body: Readable; close: () => void } {
    const file = createReadStream(localFile, { highWaterMark: PART_READ_BYTES });
    const check = contentCheck(part.sha256, part.bytes);
    file.on('error', (error) => check.destroy(error));
    return { body: file.pipe(check), close: () => file.destroy() };
  }

  /** One PUT of known length: wrong bytes never send their last byte, and the request is aborted. */
  async function putSingle(Key: string, part: PartRef, localFile: string): Promise<void> {
    const { body, close } = checkedBody(part, localFile);
    // A body that fails does not end the request by itself (it would wait for the bytes it was promised): abort it, and report why.
    const abort = new AbortController();
    let failure: unknown;
    body.on('error', (error) => {
      failure ??= error;
      abort.abort();
    });
    try {
      await client.send(new PutObjectCommand({ Bucket, Key, Body: body, ContentLength: part.bytes, ContentType: PARQUET }), { abortSignal: abort.signal });
    } catch (error) {
      throw failure ?? error;
    } finally {
      close();
    }
  }

  async function putMultipart(Key: string, part: PartRef, localFile: string): Promise<void> {
    const { body, close } = checkedBody(part, localFile);
    const upload = new Upload({
      client,
      params: { Bucket, Key, Body: body, ContentType: PARQUET },
      partSize: options.partSize ?? DEFAULT_PART_SIZE,
      queueSize: QUEUE_SIZE,
      // A failed upload is aborted, so no parts of it linger (and bill) in the bucket.
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } finally {
      close();
    }
  }

  return {
    capabilities: { presign: true },

    newLocation,

    putPart: (part, localFile) =>
      guarded(async () => {
        const Key = root + partKey(part);
        if (part.bytes > (options.singlePutMaxBytes ?? DEFAULT_SINGLE_PUT_MAX_BYTES)) return putMultipart(Key, part, localFile);
        // The SDK does not retry a request whose body is a stream (it cannot replay it): a failure
        // the backend may not repeat is tried again here, from the file, through a new check.
        for (let attempt = 1; ; attempt++) {
          try {
            return await putSingle(Key, part, localFile);
          } catch (error) {
            if (attempt === PUT_ATTEMPTS || storageError(error).details?.retryable !== true) throw error;
            await new Promise((resolve) => setTimeout(resolve, PUT_RETRY_DELAY_MS * attempt));
          }
        }
      }),

    localPath: (part) =>
      guarded(async () => {
        const Key = root + partKey(part);
        return cache.acquire(part.sha256, part.bytes, () => open(Key));
      }),

    deleteLocation: (location) => guarded(() => deleteUnder(client, Bucket, `${root}${checkLocation(location)}/`)),

    listLocations: (page) => guarded(() => listS3Locations(client, Bucket, root, page)),

    presignGet: (part, expiresInSeconds) =>
      guarded(() =>
        getSignedUrl(client, new GetObjectCommand({ Bucket, Key: root + partKey(part) }), {
          expiresIn: checkExpiry(expiresInSeconds),
          ...(options.now === undefined ? {} : { signingDate: options.now() }),
        }),
      ),

    probe: () =>
      guarded(async () => {
        await client.send(new ListObjectsV2Command({ Bucket, Prefix: root, MaxKeys: 1 }));
      }),

    close: () => client.destroy(),
  };
}
