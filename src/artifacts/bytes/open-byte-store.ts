/**
 * The one place that turns the settings into a ByteStore: SLUICE_ARTIFACT_URL
 * unset or `file://` gives the local directory store (unset: under the data
 * dir, beside the local catalog); `s3://` gives the bucket, read through a
 * part cache bounded by SLUICE_CACHE_BYTES in the data dir. Opening does no
 * I/O, so start-up never waits on storage; /readyz asks probe(). Its job
 * includes placing directories in the data dir (hence node:path).
 */
import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { ByteStore } from './byte-store.ts';
import { createLocalBytes } from './local-bytes.ts';
import { PartCache } from './part-cache.ts';
import { createS3Bytes } from './s3-bytes.ts';
import { createS3Client } from './s3-client.ts';

/** Where remote parts are cached, relative to the data dir. */
export const PART_CACHE_DIR = join('cache', 'parts');

export function openByteStore(config: Pick<Config, 'dataDir' | 'artifactBytes' | 's3' | 'cacheBytes'>): ByteStore {
  const setting = config.artifactBytes;
  if (setting.kind === 'file') {
    return createLocalBytes({ root: setting.dir ?? join(config.dataDir, 'artifacts') });
  }
  return createS3Bytes({
    client: createS3Client(config.s3),
    bucket: setting.bucket,
    prefix: setting.prefix,
    cache: new PartCache({ dir: join(config.dataDir, PART_CACHE_DIR), maxBytes: config.cacheBytes }),
  });
}
