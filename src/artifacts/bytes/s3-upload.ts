/**
 * One part's upload to S3, streamed from the local file through the hash
 * check, which fails before the upload completes, so a wrong reference is
 * never stored. A part of an export's usual size goes up as one PUT of
 * known length (tried again from the file when the failure may pass); a
 * very large one as a multipart upload. Never the whole part in memory.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { PartRef } from './byte-store.ts';
import { contentCheck, PART_READ_BYTES } from './content-check.ts';
import { storageError } from './storage-errors.ts';

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

/** Where one part goes. */
export interface UploadTarget {
  client: S3Client;
  bucket: string;
  key: string;
}

export interface UploadSizes {
  /** Size of one multipart chunk; S3 wants at least 5 MiB. */
  partSize?: number;
  /** Parts up to this size go up as one streamed PUT; larger ones as a multipart upload. */
  singlePutMaxBytes?: number;
}

export async function uploadPart(target: UploadTarget, part: PartRef, localFile: string, sizes: UploadSizes): Promise<void> {
  if (part.bytes > (sizes.singlePutMaxBytes ?? DEFAULT_SINGLE_PUT_MAX_BYTES)) return putMultipart(target, part, localFile, sizes.partSize ?? DEFAULT_PART_SIZE);
  // The SDK does not retry a request whose body is a stream (it cannot replay it): a failure
  // the backend may not repeat is tried again here, from the file, through a new check.
  for (let attempt = 1; ; attempt++) {
    try {
      return await putSingle(target, part, localFile);
    } catch (error) {
      if (attempt === PUT_ATTEMPTS || storageError(error).details?.retryable !== true) throw error;
      await new Promise((resolve) => setTimeout(resolve, PUT_RETRY_DELAY_MS * attempt));
    }
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
async function putSingle({ client, bucket, key }: UploadTarget, part: PartRef, localFile: string): Promise<void> {
  const { body, close } = checkedBody(part, localFile);
  // A body that fails does not end the request by itself (it would wait for the bytes it was promised): abort it, and report why.
  const abort = new AbortController();
  let failure: unknown;
  body.on('error', (error) => {
    failure ??= error;
    abort.abort();
  });
  try {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: part.bytes, ContentType: PARQUET }), { abortSignal: abort.signal });
  } catch (error) {
    throw failure ?? error;
  } finally {
    close();
  }
}

async function putMultipart({ client, bucket, key }: UploadTarget, part: PartRef, localFile: string, partSize: number): Promise<void> {
  const { body, close } = checkedBody(part, localFile);
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: body, ContentType: PARQUET },
    partSize,
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
