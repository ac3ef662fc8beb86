/**
 * What the end-to-end tests of a server on the PostgreSQL catalog and S3
 * bytes share. Each test file gets a catalog database of its own: the
 * server always puts its catalog in the schema `sluice`, which no setting
 * changes, so a file isolates itself by database instead (two files side
 * by side on one PostgreSQL then never count each other's artifacts, and
 * none of them has to drop a schema another may be using). Also: the
 * settings that point a server at that database and at an s3rver, the
 * bucket seen from outside the server, free ports, files under a data dir,
 * and a bounded poll for a state (never a fixed sleep).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join, relative } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { openAdminSql } from '../helpers/admin-sql.ts';
import type { TestS3Server } from '../helpers/s3-server.ts';

/** A database of this file's own on the test server, dropped (connections and all) when the file ends. */
export async function createCatalogDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sluice_e2e_${randomBytes(6).toString('hex')}`;
  const admin = openAdminSql(baseUrl);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** The v2 settings of a server whose catalog is `catalogUrl` and whose bytes are under `prefix` in the s3rver's bucket. */
export function remoteStoreEnv(catalogUrl: string, s3: TestS3Server, prefix: string): Record<string, string> {
  return {
    SLUICE_CATALOG_URL: catalogUrl,
    SLUICE_ARTIFACT_URL: `s3://${s3.bucket}/${prefix}`,
    SLUICE_S3_ENDPOINT: s3.endpoint,
    SLUICE_S3_REGION: 'us-east-1',
    SLUICE_S3_FORCE_PATH_STYLE: 'true',
    SLUICE_CACHE_BYTES: String(64 * 1024 * 1024),
  };
}

/** A client of the bucket that is not the server's: what an operator (or an attacker with bucket access) sees. */
export function bucketClient(s3: TestS3Server): S3Client {
  return new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, maxAttempts: 1 });
}

/** Every key under `prefix/`, in key order. */
export async function listKeys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const out = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/`, ...(ContinuationToken === undefined ? {} : { ContinuationToken }) }));
    keys.push(...(out.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [o.Key])));
    ContinuationToken = out.IsTruncated === true ? out.NextContinuationToken : undefined;
  } while (ContinuationToken !== undefined);
  return keys;
}

/** A port nothing listens on now (the kernel's choice), so connecting to it is refused until someone does. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A TCP port in front of a PostgreSQL that refuses connections (nothing
 * listens on it) until `forward`, then relays them; `cut` drops every
 * relayed connection and refuses again: a database that is down, comes up,
 * and goes away for a while later. `urlOf` is a database URL through it.
 */
export async function switchableRelay(target: URL): Promise<{ port: number; urlOf(url: string): string; forward(): Promise<void>; cut(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  return {
    port,
    urlOf(url) {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      return through.toString();
    },
    async forward() {
      if (server.listening) return;
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async cut() {
      if (!server.listening) return;
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

/** Files (not directories) under `dir`, as paths relative to it. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/**
 * Polls `probe` until it returns something other than undefined. The bound
 * is generous (a loaded machine is slow); reaching it fails the test with
 * the last value seen, since the state never came.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, boundMs = 60_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${boundMs} ms (last error: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** GET or POST JSON with no client but fetch, as an outside caller would. */
export async function getJson(url: string, init: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers['x-token'] = init.token;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method: init.body === undefined ? 'GET' : 'POST', headers, redirect: 'manual', ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // A download: the text itself.
  }
  return { status: response.status, body, text, headers: response.headers };
}
