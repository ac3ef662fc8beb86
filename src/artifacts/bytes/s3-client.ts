/**
 * The S3 client for artifact bytes, configured once from the settings. It
 * talks to AWS S3 or any S3-compatible service (MinIO, R2, Ceph, s3rver);
 * credentials come from the SDK's default chain (environment, profile,
 * container or instance role), so they never pass through Sluice's settings.
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { S3Setting } from '../../config.ts';

/** Connecting that takes longer means the endpoint is down or unreachable, not slow. */
const CONNECT_TIMEOUT_MS = 5_000;
/** A socket silent this long is dead; a large download that keeps moving is never cut by it. */
const IDLE_TIMEOUT_MS = 60_000;

export function createS3Client(setting: S3Setting): S3Client {
  return new S3Client({
    region: setting.region,
    ...(setting.endpoint === undefined ? {} : { endpoint: setting.endpoint }),
    forcePathStyle: setting.forcePathStyle,
    // Checksums only where S3 requires them: the SDK's default (CRC32 trailers on every
    // upload, aws-chunked bodies) is refused by many S3-compatible services, and parts are
    // checked end to end against their SHA-256 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // The SDK's own warnings (a streamed upload it will not retry) would go to the console; the
    // store retries such uploads itself and reports what fails through its errors.
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: IDLE_TIMEOUT_MS },
  });
}
