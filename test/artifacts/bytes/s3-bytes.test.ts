/**
 * The S3 store against a real S3-compatible server (s3rver on 127.0.0.1),
 * built as the server builds it (the client of s3-client.ts, credentials
 * from the SDK's default chain): the contract suite, each store on its own
 * key prefix and its own cache directory. The client's calls are counted by
 * command, so the suite can see multipart uploads and single downloads.
 * Listing and deleting uploads is also run with tiny batches, so uploads
 * whose keys span several calls are seen to group and go whole.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openByteStore } from '../../../src/artifacts/bytes/open-byte-store.ts';
import { PartCache } from '../../../src/artifacts/bytes/part-cache.ts';
import { createS3Bytes } from '../../../src/artifacts/bytes/s3-bytes.ts';
import { createS3Client } from '../../../src/artifacts/bytes/s3-client.ts';
import { deleteUnder, listS3Locations } from '../../../src/artifacts/bytes/s3-locations.ts';
import { loadConfig } from '../../../src/config.ts';
import { S3_ACCESS_KEY, startS3Server, type TestS3Server } from '../../helpers/s3-server.ts';
import { testByteStore } from './byte-store-contract.ts';
import { filesUnder, makePart, upload } from './part-fixtures.ts';

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
    // Below the default, so the suite's 12 MB part takes the multipart path and its 9 MB part one PUT.
    singlePutMaxBytes: 10 * 1024 * 1024,
    ...(now === undefined ? {} : { now }),
  });
  return {
    store,
    cacheDir,
    calls,
    tamper: async (ref, content) => {
      const Key = `${prefix}/objects/${ref.location}/${ref.name}`;
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
    const [ref] = await upload(store, [part]);
    const lease = await store.localPath(ref!);
    expect(lease.path.startsWith(join(dataDir, 'cache', 'parts'))).toBe(true);
    lease.release();
    expect(filesUnder(join(dataDir, 'cache', 'parts')).map((f) => f.name)).toEqual([`${part.sha256}.parquet`]);
    expect((await store.listLocations({ limit: 10 })).locations.map((entry) => entry.location)).toEqual([ref!.location]);
    store.close();
  });
});

describe('S3 uploads whose keys span several calls', () => {
  it('are listed whole and once, and deleted whole', async () => {
    const prefix = `spans/${randomUUID()}`;
    const cacheDir = mkdtempSync(join(tmpdir(), 'sluice-part-cache-'));
    dirs.push(cacheDir);
    const { client, calls } = countingClient();
    const store = createS3Bytes({ client, bucket: server.bucket, prefix, cache: new PartCache({ dir: cacheDir, maxBytes: 1_000_000 }) });
    const sizes = [[10, 20, 30], [40], [50, 60, 70, 80, 90], [100, 110]];
    const uploads = [];
    for (const group of sizes) uploads.push(await upload(store, group.map((size) => makePart(cacheDir, size))));
    const root = `${prefix}/objects/`;
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      // Two keys a call, two uploads a page: most uploads straddle a call.
      const result = await listS3Locations(client, server.bucket, root, { after, limit: 2 }, 2);
      expect(result.locations.length).toBeLessThanOrEqual(2);
      seen.push(...result.locations.map((entry) => entry.location));
      if (result.next === null) break;
      after = result.next;
    }
    expect(seen).toEqual(uploads.map((refs) => refs[0]!.location).sort());
    const biggest = uploads[2]![0]!.location;
    const before = calls('DeleteObjects');
    await deleteUnder(client, server.bucket, `${root}${biggest}/`, 2);
    expect(calls('DeleteObjects') - before).toBe(3);
    expect((await store.listLocations({ limit: 10 })).locations.map((entry) => entry.location)).toEqual(seen.filter((location) => location !== biggest));
    store.close();
  });
});

describe('S3 uploads that meet a connection dropped mid-body', () => {
  /** A client whose first `failures` PUTs read some of their body and then fail as a reset connection would. */
  function droppingClient(failures: number): { client: S3Client; puts: () => number } {
    const client = createS3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true });
    const send = client.send.bind(client);
    let puts = 0;
    vi.spyOn(client, 'send').mockImplementation((async (command: { input: { Body?: unknown } }, ...rest: unknown[]) => {
      if (command instanceof PutObjectCommand && ++puts <= failures) {
        for await (const _chunk of command.input.Body as AsyncIterable<Buffer>) break;
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    }) as never);
    return { client, puts: () => puts };
  }

  function storeOver(client: S3Client) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'sluice-part-cache-'));
    dirs.push(cacheDir);
    return { cacheDir, store: createS3Bytes({ client, bucket: server.bucket, prefix: `drops/${randomUUID()}`, cache: new PartCache({ dir: cacheDir, maxBytes: 10_000_000 }) }) };
  }

  it('sends the part again from its file, and stores it whole', async () => {
    const { client, puts } = droppingClient(2);
    const { cacheDir, store } = storeOver(client);
    const part = makePart(cacheDir, 300_000);
    const [ref] = await upload(store, [part]);
    expect(puts()).toBe(3);
    const lease = await store.localPath(ref!);
    expect(readFileSync(lease.path).equals(readFileSync(part.path))).toBe(true);
    lease.release();
    store.close();
  });

  it('gives up after three attempts as STORAGE_UNAVAILABLE, storing nothing', async () => {
    const { client, puts } = droppingClient(3);
    const { cacheDir, store } = storeOver(client);
    const part = makePart(cacheDir, 300_000);
    const failure = await upload(store, [part]).then(() => null, (error: unknown) => error);
    expect(failure).toMatchObject({ code: 'STORAGE_UNAVAILABLE', details: { retryable: true, reason: 'ECONNRESET' } });
    expect(puts()).toBe(3);
    expect((await store.listLocations({ limit: 10 })).locations).toEqual([]);
    store.close();
  });
});
