/**
 * A server on the PostgreSQL catalog and S3 bytes is degraded, never dead,
 * when either half cannot be reached, and recovers by itself, over HTTP:
 * - started while its catalog refuses connections, it is live (/healthz
 *   200) and not ready (/readyz 503 naming the catalog), answers queries
 *   with their preview, and once the catalog can be reached turns ready
 *   and stores artifacts, with nobody restarting it; a catalog that goes
 *   away later makes it not ready and its reads 503, until it is back;
 * - with its bucket gone, /readyz names artifact storage; a query still
 *   answers 200 with its preview and `artifact.decision: FAILED, reason:
 *   STORAGE_UNAVAILABLE`, leaving no scratch directory, no catalog row and
 *   no object; an artifact not in the local cache is 503
 *   STORAGE_UNAVAILABLE naming no host, port, bucket or key, while one
 *   already cached still reads; when the bucket is back everything works.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { PG_SKIP_REASON, PG_URL } from '../catalog/pg-test-schemas.ts';
import { bucketClient, createCatalogDatabase, freePort, getJson, listKeys, remoteStoreEnv, switchableRelay, waitFor } from './remote-store-setup.ts';

const SKIP = PG_SKIP_REASON !== null;
const RUN = randomBytes(4).toString('hex');
/** Goes into the catalog URL (trust authentication ignores it), so a response that leaked the URL would show it. */
const CATALOG_PASSWORD = `catalog-secret-${RUN}`;

/** What no error body may contain: where the bytes live and how they are named. */
function expectNoStorageAddress(text: string, s3: TestS3Server, prefix: string): void {
  for (const secret of ['127.0.0.1', 'localhost', String(s3.port), s3.bucket, prefix, 'objects/', 'part-0', '.parquet']) expect(text).not.toContain(secret);
}

async function readiness(url: string): Promise<{ status: number; body: any }> {
  return getJson(`${url}/readyz`);
}

describe.skipIf(SKIP)(skipNote(SKIP, 'a server with its catalog or its bucket unreachable', PG_SKIP_REASON ?? ''), () => {
  let s3: TestS3Server;
  let bucket: S3Client;
  let catalogDb: Awaited<ReturnType<typeof createCatalogDatabase>>;

  beforeAll(async () => {
    s3 = await startS3Server(`sluice-degraded-${RUN}`);
    bucket = bucketClient(s3);
    catalogDb = await createCatalogDatabase(PG_URL!);
  });

  afterAll(async () => {
    bucket?.destroy();
    await s3?.close();
    await catalogDb?.drop();
  });

  it('starts with its catalog unreachable: live, not ready naming the catalog, previews still answered; ready by itself once the catalog answers', async () => {
    const target = new URL(catalogDb.url);
    const relay = await switchableRelay(target);
    const viaRelay = new URL(relay.urlOf(catalogDb.url));
    viaRelay.password = CATALOG_PASSWORD;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const prefix = `catalog-down-${RUN}`;
    // startTestServer resolves once the server is ready, which it cannot be yet: the server is reached by its port meanwhile.
    const starting = startTestServer({ ...remoteStoreEnv(viaRelay.toString(), s3, prefix), PORT: String(port) });
    starting.catch(() => undefined);
    try {
      await waitFor('/healthz 200', async () => ((await fetch(`${base}/healthz`)).status === 200 ? true : undefined));
      // Everything else comes up (datasource, workers, bucket); the catalog alone stays missing.
      const notReady = await waitFor('/readyz 503 naming only the catalog', async () => {
        const r = await readiness(base);
        return r.status === 503 && JSON.stringify(r.body.missing) === '["catalog"]' ? r : undefined;
      });
      expect(notReady.body).toEqual({ status: 'not ready', missing: ['catalog'], degraded: [] });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);

      const q = await getJson(`${base}/api/queries`, { token: TOKENS.admin, body: { sql: 'select g::int8 as n from generate_series(1, 300) g', previewRows: 3, materialize: 'always' } });
      expect(q.status, q.text).toBe(200);
      expect(q.body.data.preview.rows).toEqual([['1'], ['2'], ['3']]);
      expect(q.body.data.artifact).toMatchObject({ decision: 'FAILED', reason: 'STORAGE_UNAVAILABLE' });
      const listing = await getJson(`${base}/api/artifacts`, { token: TOKENS.admin });
      expect(listing.status).toBe(503);
      expect(listing.body.errorCode).toBe('STORAGE_UNAVAILABLE');
      for (const body of [q.text, listing.text, JSON.stringify(notReady.body)]) {
        expect(body).not.toContain(CATALOG_PASSWORD);
        expect(body).not.toContain(String(relay.port));
        expect(body).not.toContain(target.pathname.slice(1));
      }

      await relay.forward();
      // Nobody restarts anything: the server opens its catalog by itself.
      const ready = await waitFor('/readyz 200', async () => {
        const r = await readiness(base);
        return r.status === 200 ? r : undefined;
      });
      expect(ready.body).toEqual({ status: 'ready', missing: [], degraded: [] });
      const server = await starting;
      const id = await createArtifact(server, 'select g::int8 as n from generate_series(1, 300) g');
      const read = await server.request(`/api/artifacts/${id}/read`, { body: { limit: 2 } });
      expect(read.status).toBe(200);
      expect(read.body.data.rows).toEqual([['1'], ['2']]);
      expect((await listKeys(bucket, s3.bucket, prefix)).length).toBe(1);

      // Gone again later, with the server running: not ready, reads refused (they are authorized by the catalog), and back by itself.
      await relay.cut();
      const cutOff = await waitFor('/readyz 503 naming the catalog after a cut', async () => {
        const r = await readiness(base);
        return r.status === 503 ? r : undefined;
      });
      expect(cutOff.body).toEqual({ status: 'not ready', missing: ['catalog'], degraded: [] });
      const refused = await server.request(`/api/artifacts/${id}/read`, { body: { limit: 2 } });
      expect(refused.status).toBe(503);
      expect(refused.body.errorCode).toBe('STORAGE_UNAVAILABLE');
      expect(JSON.stringify(refused.body)).not.toContain(String(relay.port));
      await relay.forward();
      await waitFor('/readyz 200 after the catalog is back', async () => ((await readiness(base)).status === 200 ? true : undefined));
      expect((await server.request(`/api/artifacts/${id}/read`, { body: { limit: 2 } })).body.data.rows).toEqual([['1'], ['2']]);
    } finally {
      // Let a start that is still waiting finish, so its server can be stopped.
      await relay.forward();
      await (await starting.catch(() => undefined))?.stop();
      await relay.cut();
    }
  });

  it('loses its bucket: not ready naming artifact storage, previews still answered with nothing left behind, uncached reads STORAGE_UNAVAILABLE; all back with the bucket', async () => {
    const prefix = `bucket-down-${RUN}`;
    const server: TestServer = await startTestServer(remoteStoreEnv(catalogDb.url, s3, prefix));
    const failedSql = 'select g::int8 as n, g * 2 as twice from generate_series(1, 5000) g';
    try {
      const cold = await createArtifact(server, "select g::int8 as n, md5(g::text) as h from generate_series(1, 2000) g");
      const warm = await createArtifact(server, 'select g::int8 as n from generate_series(1, 777) g');
      const warmRead = await server.request(`/api/artifacts/${warm}/read`, { body: { limit: 1000 } });
      expect(warmRead.status).toBe(200);
      // The catalog database is this file's, shared by its tests: counts are compared, not assumed.
      const usage = (await server.request('/api/usage')).body.data;
      const keys = await listKeys(bucket, s3.bucket, prefix);
      expect(keys).toHaveLength(2);

      await s3.stop();
      try {
        const notReady = await waitFor('/readyz 503 naming artifact storage', async () => {
          const r = await readiness(server.sluice.url);
          return r.status === 503 ? r : undefined;
        });
        expect(notReady.body).toEqual({ status: 'not ready', missing: ['artifact storage'], degraded: [] });
        expect((await fetch(`${server.sluice.url}/healthz`)).status).toBe(200);

        const q = await server.request('/api/queries', { body: { sql: failedSql, previewRows: 4, materialize: 'always' } });
        expect(q.status, JSON.stringify(q.body)).toBe(200);
        expect(q.body.data.state).toBe('SUCCEEDED');
        expect(q.body.data.preview.rows).toEqual([['1', 2], ['2', 4], ['3', 6], ['4', 8]]);
        expect(q.body.data.artifact).toMatchObject({ decision: 'FAILED', reason: 'STORAGE_UNAVAILABLE' });
        expect(q.body.data.artifact.id).toBeUndefined();
        expectNoStorageAddress(JSON.stringify(q.body), s3, prefix);
        expect(readdirSync(join(server.dataDir, 'artifacts', 'staging'))).toEqual([]);
        expect((await server.request('/api/usage')).body.data).toEqual(usage);

        const attempts = [
          () => server.request(`/api/artifacts/${cold}/read`, { body: { limit: 10 } }),
          () => server.request(`/api/artifacts/${cold}/aggregate`, { body: { metrics: [{ fn: 'count' }] } }),
          () => server.request(`/api/artifacts/${cold}/download?format=csv`),
        ];
        for (const attempt of attempts) {
          const r = await attempt();
          expect(r.status, JSON.stringify(r.body)).toBe(503);
          expect(r.body.errorCode).toBe('STORAGE_UNAVAILABLE');
          expect(r.body.data).toBeNull();
          expectNoStorageAddress(JSON.stringify(r.body), s3, prefix);
        }
        // A part already in the local cache needs no bucket.
        const cached = await server.request(`/api/artifacts/${warm}/read`, { body: { limit: 1000 } });
        expect(cached.status).toBe(200);
        expect(cached.body.data.rows).toEqual(warmRead.body.data.rows);
      } finally {
        await s3.start();
      }

      const ready = await waitFor('/readyz 200 with the bucket back', async () => {
        const r = await readiness(server.sluice.url);
        return r.status === 200 ? r : undefined;
      });
      expect(ready.body).toEqual({ status: 'ready', missing: [], degraded: [] });
      // The failed query uploaded nothing that stayed.
      expect(await listKeys(bucket, s3.bucket, prefix)).toEqual(keys);
      const read = await server.request(`/api/artifacts/${cold}/read`, { body: { limit: 2 } });
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.data.rows).toEqual([
        ['1', 'c4ca4238a0b923820dcc509a6f75849b'],
        ['2', 'c81e728d9d4c2f636f067f89cc14862c'],
      ]);
      const again = await createArtifact(server, failedSql);
      const count = await server.request(`/api/artifacts/${again}/aggregate`, { body: { metrics: [{ fn: 'count' }, { fn: 'sum', column: 'twice' }] } });
      expect(count.body.data.rows).toEqual([['5000', '25005000']]);
      expect((await server.request('/api/usage')).body.data.principal.artifacts).toBe(usage.principal.artifacts + 1);
    } finally {
      await server.stop();
    }
  });
});
