/**
 * Parts in an S3-compatible bucket, `<prefix>/parts/ab/<sha256>.parquet`,
 * shared by every replica. Uploads stream from the local file as a
 * multipart upload (never the whole part in memory) through the hash check,
 * which fails before the upload completes, so a wrong address is never
 * stored. Reads go through the bounded local PartCache: a replica downloads
 * a part once and DuckDB reads the local copy. Parts are immutable and named
 * by content, so two replicas uploading the same part at once store the
 * same bytes and neither needs a lock. Reading the local file to upload is
 * this module's one use of the local disk.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ByteStore, PartPage } from './byte-store.ts';
import { contentCheck } from './content-check.ts';
import { PARTS_DIR, addressOf, checkAddress, checkExpiry, checkLimit, checkSize, partName, partNotFound } from './part-address.ts';
import type { PartCache } from './part-cache.ts';
import { guarded } from './storage-errors.ts';

export interface S3BytesOptions {
  client: S3Client;
  bucket: string;
  /** Key prefix without slashes at either end; empty for the bucket's root. */
  prefix: string;
  cache: PartCache;
  /** Size of one multipart chunk; S3 wants at least 5 MiB. */
  partSize?: number;
  /** The signing clock of download links (tests sign in the past to see them expire). */
  now?: () => Date;
}

/** Two chunks in flight of 8 MiB each: at most 16 MiB of a part in memory per upload. */
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
const PARQUET = 'application/vnd.apache.parquet';

function isMissingKey(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  // A HEAD has no body, so S3 says only "NotFound"; a missing bucket has its own name on a GET.
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || (e.name !== 'NoSuchBucket' && e.$metadata?.httpStatusCode === 404);
}

export function createS3Bytes(options: S3BytesOptions): ByteStore {
  const { client, bucket: Bucket, cache } = options;
  const root = `${options.prefix === '' ? '' : `${options.prefix}/`}${PARTS_DIR}/`;
  const keyOf = (sha256: string) => root + partName(sha256);

  async function storedSize(Key: string): Promise<number | undefined> {
    try {
      return (await client.send(new HeadObjectCommand({ Bucket, Key }))).ContentLength;
    } catch (error) {
      if (isMissingKey(error)) return undefined;
      throw error;
    }
  }

  async function open(Key: string): Promise<Readable> {
    try {
      return (await client.send(new GetObjectCommand({ Bucket, Key }))).Body as Readable;
    } catch (error) {
      throw isMissingKey(error) ? partNotFound() : error;
    }
  }

  return {
    capabilities: { presign: true },

    putPart: (localFile, sha256, bytes) =>
      guarded(async () => {
        const Key = keyOf(sha256);
        checkSize(bytes);
        // An object of another size under this address was cut short somehow: replace it.
        if ((await storedSize(Key)) === bytes) return { written: false };
        const file = createReadStream(localFile);
        const Body = contentCheck(sha256, bytes);
        file.on('error', (error) => Body.destroy(error));
        const upload = new Upload({
          client,
          params: { Bucket, Key, Body: file.pipe(Body), ContentType: PARQUET },
          partSize: options.partSize ?? DEFAULT_PART_SIZE,
          queueSize: QUEUE_SIZE,
          // A failed upload is aborted, so no parts of it linger (and bill) in the bucket.
          leavePartsOnError: false,
        });
        try {
          await upload.done();
        } finally {
          file.destroy();
        }
        return { written: true };
      }),

    localPath: (sha256, bytes) => guarded(() => cache.acquire(sha256, bytes, () => open(keyOf(sha256)))),

    deletePart: (sha256) =>
      guarded(async () => {
        await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(sha256) }));
        cache.discard(sha256);
      }),

    listParts: ({ after, limit }) =>
      guarded(async (): Promise<PartPage> => {
        const out = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: root, MaxKeys: checkLimit(limit), ...(after === undefined ? {} : { StartAfter: root + after }) }),
        );
        const names = (out.Contents ?? []).map((object) => (object.Key ?? '').slice(root.length));
        const parts = names.flatMap((name) => addressOf(name) ?? []);
        return { parts, next: out.IsTruncated === true ? (names.at(-1) ?? null) : null };
      }),

    presignGet: (sha256, expiresInSeconds) =>
      guarded(() =>
        getSignedUrl(client, new GetObjectCommand({ Bucket, Key: keyOf(sha256) }), {
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
