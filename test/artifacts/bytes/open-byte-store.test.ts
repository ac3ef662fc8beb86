/**
 * The v2 settings of artifact bytes as config.ts parses them, and the store
 * openByteStore makes of them: where a local store writes, that an S3 store
 * is chosen for s3:// and costs no I/O to open, and that bad values stop
 * start-up with a message naming the variable (and no secret).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openByteStore } from '../../../src/artifacts/bytes/open-byte-store.ts';
import { loadConfig } from '../../../src/config.ts';
import { makePart, partRef, upload } from './part-fixtures.ts';

const work = mkdtempSync(join(tmpdir(), 'sluice-open-bytes-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('artifact bytes settings', () => {
  it('default to the data dir, AWS defaults and a 2 GiB cache', () => {
    const config = loadConfig({});
    expect(config.artifactBytes).toEqual({ kind: 'file', dir: undefined });
    expect(config.s3).toEqual({ endpoint: undefined, region: 'us-east-1', forcePathStyle: false });
    expect(config.cacheBytes).toBe(2147483648);
  });

  it.each([
    ['s3://bucket-1/tenant/a/', { kind: 's3', bucket: 'bucket-1', prefix: 'tenant/a' }],
    ['s3://my.bucket', { kind: 's3', bucket: 'my.bucket', prefix: '' }],
    ['file:///var/lib/sluice%20bytes', { kind: 'file', dir: '/var/lib/sluice bytes' }],
  ])('read %s', (url, expected) => {
    expect(loadConfig({ SLUICE_ARTIFACT_URL: url }).artifactBytes).toEqual(expected);
  });

  it.each(['s3://UPPER/x', 's3://ab', 's3://-bucket', 's3://bucket?x=1', 'http://bucket/x', 'file://host/x', 'file:///', 'bucket/prefix'])(
    'refuse SLUICE_ARTIFACT_URL=%s',
    (url) => {
      expect(() => loadConfig({ SLUICE_ARTIFACT_URL: url })).toThrow(/SLUICE_ARTIFACT_URL/);
    },
  );

  it('read the S3 endpoint, region and path style, and refuse credentials in the endpoint', () => {
    const config = loadConfig({ SLUICE_S3_ENDPOINT: 'http://127.0.0.1:9000', SLUICE_S3_REGION: 'eu-west-3', SLUICE_S3_FORCE_PATH_STYLE: 'true' });
    expect(config.s3).toEqual({ endpoint: 'http://127.0.0.1:9000', region: 'eu-west-3', forcePathStyle: true });
    expect(loadConfig({ SLUICE_S3_FORCE_PATH_STYLE: '0' }).s3.forcePathStyle).toBe(false);
    expect(() => loadConfig({ SLUICE_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/SLUICE_S3_FORCE_PATH_STYLE/);
    expect(() => loadConfig({ SLUICE_S3_ENDPOINT: 'ftp://host' })).toThrow(/SLUICE_S3_ENDPOINT/);
    let message = '';
    try {
      loadConfig({ SLUICE_S3_ENDPOINT: 'https://key:hunter2@host' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/SLUICE_S3_ENDPOINT/);
    expect(message).not.toContain('hunter2');
    expect(() => loadConfig({ SLUICE_CACHE_BYTES: '-1' })).toThrow(/SLUICE_CACHE_BYTES/);
  });
});

describe('openByteStore', () => {
  it('keeps parts under <data dir>/artifacts when no URL is set', async () => {
    const dataDir = join(work, 'default');
    const store = openByteStore(loadConfig({ SLUICE_DATA_DIR: dataDir }));
    expect(store.capabilities.presign).toBe(false);
    const part = makePart(work, 100);
    const [ref] = await upload(store, [part]);
    expect(existsSync(join(dataDir, 'artifacts', 'objects', ref!.location, 'part-00000.parquet'))).toBe(true);
  });

  it('reads the parts of a data dir written by an earlier version, where a location is the blob hash alone', async () => {
    const dataDir = join(work, 'earlier');
    const part = makePart(work, 300);
    const hash = part.sha256;
    const dir = join(dataDir, 'artifacts', 'objects', hash.slice(0, 2), hash);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'part-00000.parquet'), part.content);
    const store = openByteStore(loadConfig({ SLUICE_DATA_DIR: dataDir }));
    const ref = partRef(`${hash.slice(0, 2)}/${hash}`, part);
    const lease = await store.localPath(ref);
    expect(readFileSync(lease.path).equals(part.content)).toBe(true);
    lease.release();
    expect((await store.listLocations({ limit: 5 })).locations.map((entry) => entry.location)).toEqual([ref.location]);
    await store.deleteLocation(ref.location);
    expect(existsSync(dir)).toBe(false);
  });

  it('keeps parts in the directory of a file:// URL', async () => {
    const dir = join(work, 'elsewhere');
    const store = openByteStore(loadConfig({ SLUICE_DATA_DIR: join(work, 'unused'), SLUICE_ARTIFACT_URL: `file://${dir}` }));
    const part = makePart(work, 100);
    const [ref] = await upload(store, [part]);
    expect((await store.listLocations({ limit: 5 })).locations.map((entry) => entry.location)).toEqual([ref!.location]);
    expect(existsSync(join(dir, 'objects'))).toBe(true);
    expect(existsSync(join(work, 'unused'))).toBe(false);
  });

  it('opens an S3 store for s3:// without touching the network or the disk', () => {
    const dataDir = join(work, 's3');
    const store = openByteStore(loadConfig({ SLUICE_DATA_DIR: dataDir, SLUICE_ARTIFACT_URL: 's3://sluice-bytes/p', SLUICE_S3_ENDPOINT: 'http://127.0.0.1:1' }));
    expect(store.capabilities.presign).toBe(true);
    expect(existsSync(dataDir)).toBe(false);
    store.close();
  });
});
