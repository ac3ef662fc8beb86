/**
 * The S3 store against a real S3-compatible server (s3rver on 127.0.0.1),
 * built as the server builds it (the client of s3-client.ts, credentials
 * from the SDK's default chain): the contract suite, each store on its own
 * key prefix and its own cache directory. The client's calls are counted by
 * command, so the suite can see multipart uploads and single downloads.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openByteStore } from '../../../src/artifacts/bytes/open-byte-store.ts';
import { PartCache } from '../../../src/artifacts/bytes/part-cache.ts';
import { createS3Bytes } from '../../../src/artifacts/bytes/s3-bytes.ts';
import { createS3Client } from '../../../src/artifacts/bytes/s3-client.ts';
import { loadConfig } from '../../../src/config.ts';
import { S3_ACCESS_KEY, startS3Server, type TestS3Server } from '../../helpers/s3-server.ts';
import { testByteStore } from './byte-store-contract.ts';
import { filesUnder, makePart } from './part-fixtures.ts';

let server: TestS3Server;
const dirs: string[] = [];

beforeAll(async () => {
  server = await startS3Server();
});
afterAll(async () => {
  await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function countingClient(): { client: S3Client; calls: (kind: string) => number } {
  const client = createS3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true });
  const spy = vi.spyOn(client, 'send');
  return {
    client,
    calls: (kind) => spy.mock.calls.filter(([command]) => command.constructor.name === `${kind}Command`).length,
  };
}

testByteStore('S3 (s3rver)', { remote: true, presign: true, outage: true }, async ({ cacheBytes, now }) => {
  const prefix = `tenant-a/${randomUUID()}`;
  const cacheDir = mkdtempSync(join(tmpdir(), 'sluice-part-cache-'));
  dirs.push(cacheDir);
  const { client, calls } = countingClient();
  // Reaching behind the store takes a client of its own, so the store's call counts stay its own.
  const side = createS3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true });
  const store = createS3Bytes({
    client,
    bucket: server.bucket,
    prefix,
    cache: new PartCache({ dir: cacheDir, maxBytes: cacheBytes }),
    ...(now === undefined ? {} : { now }),
  });
  return {
    store,
    cacheDir,
    calls,
    tamper: async (sha256, content) => {
      const Key = `${prefix}/parts/${sha256.slice(0, 2)}/${sha256}.parquet`;
      await side.send(new PutObjectCommand({ Bucket: server.bucket, Key, Body: content }));
    },
    outage: {
      stop: () => server.stop(),
      start: () => server.start(),
      secrets: [server.endpoint, `127.0.0.1`, String(server.port), server.bucket, S3_ACCESS_KEY, prefix],
    },
    close: async () => {
      store.close();
      side.destroy();
    },
  };
});

describe('S3 store opened from the settings', () => {
  it('reaches the bucket with the configured endpoint, path style and default credentials, caching in the data dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-s3-settings-'));
    dirs.push(dataDir);
    const store = openByteStore(
      loadConfig({
        SLUICE_DATA_DIR: dataDir,
        SLUICE_ARTIFACT_URL: `s3://${server.bucket}/from-settings/`,
        SLUICE_S3_ENDPOINT: server.endpoint,
        SLUICE_S3_FORCE_PATH_STYLE: 'true',
      }),
    );
    await store.probe();
    const part = makePart(dataDir, 4096);
    await store.putPart(part.path, part.sha256, part.bytes);
    const lease = await store.localPath(part.sha256, part.bytes);
    expect(lease.path.startsWith(join(dataDir, 'cache', 'parts'))).toBe(true);
    lease.release();
    expect(filesUnder(join(dataDir, 'cache', 'parts')).map((f) => f.name)).toEqual([`${part.sha256}.parquet`]);
    expect((await store.listParts({ limit: 10 })).parts).toEqual([part.sha256]);
    store.close();
  });
});
