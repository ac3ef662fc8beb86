/**
 * A server on the PostgreSQL catalog and S3 bytes (an s3rver), driven over
 * HTTP as a client would, answers exactly as a server on the default store
 * (SQLite and local files) does for the same query: metadata, every page
 * of a cursor walk, a filtered and sorted read, an aggregate, CSV and JSONL
 * downloads. A one-part Parquet download is a 307 to a link that any HTTP
 * client can follow without a token and that expires within minutes, and
 * a caller without access gets a 404 and no link. The parts are objects in
 * the bucket, and the data dir holds only cached copies of them. A part
 * damaged in the bucket is ARTIFACT_CORRUPT on every read of it, never
 * INTERNAL and never data.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { openAdminSql, type AdminSql } from '../helpers/admin-sql.ts';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { PG_SKIP_REASON, PG_URL } from '../catalog/pg-test-schemas.ts';
import { bucketClient, createCatalogDatabase, filesUnder, getJson, listKeys, remoteStoreEnv } from './remote-store-setup.ts';

const SKIP = PG_SKIP_REASON !== null;
const RUN = randomBytes(4).toString('hex');
const SCHEMA = `store_e2e_${RUN}`;
const PREFIX = `e2e-${RUN}/artifacts`;
const QUERY = `select * from ${SCHEMA}.facts order by id`;

interface StoredPart {
  key: string;
  sha256: string;
  bytes: number;
}

describe.skipIf(SKIP)(skipNote(SKIP, 'a server on the PostgreSQL catalog and S3 bytes, over HTTP', PG_SKIP_REASON ?? ''), () => {
  let s3: TestS3Server;
  let catalogDb: Awaited<ReturnType<typeof createCatalogDatabase>>;
  let catalogSql: AdminSql;
  let bucket: S3Client;
  let remote: TestServer;
  let local: TestServer;
  const ids = { remote: '', local: '' };
  const answers: { remote?: any; local?: any } = {};

  beforeAll(async () => {
    s3 = await startS3Server(`sluice-e2e-${RUN}`);
    bucket = bucketClient(s3);
    catalogDb = await createCatalogDatabase(PG_URL!);
    catalogSql = openAdminSql(catalogDb.url);
    [remote, local] = await Promise.all([startTestServer(remoteStoreEnv(catalogDb.url, s3, PREFIX)), startTestServer()]);
    // Types whose encoding differs most between stores if anything differs: exact decimals, int8, microsecond timestamps, NULLs, text.
    await remote.sql.query(`create schema ${SCHEMA}`);
    await remote.sql.query(`create table ${SCHEMA}.facts as
      select g::int8 as id, (array['north','south','east',null])[1 + g % 4] as region, (g * 1.37)::numeric(14,2) as amount,
             g % 7 = 0 as flag, timestamptz '2026-01-01 00:00:00Z' + g * interval '61.123456 seconds' as at,
             case when g % 11 = 0 then null else md5(g::text) end as note, 9007199254740993::int8 + g as big
        from generate_series(1, 3000) g`);
    for (const side of ['remote', 'local'] as const) {
      const server = side === 'remote' ? remote : local;
      const r = await server.request('/api/queries', { body: { sql: QUERY, previewRows: 5 } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.artifact.decision).toBe('CREATED');
      answers[side] = r.body.data;
      ids[side] = r.body.data.artifact.id;
    }
  });

  afterAll(async () => {
    await remote?.sql.query(`drop schema if exists ${SCHEMA} cascade`).catch(() => undefined);
    await Promise.allSettled([remote?.stop(), local?.stop()]);
    await catalogSql?.end();
    bucket?.destroy();
    await s3?.close();
    await catalogDb?.drop();
  });

  /** The stored parts of an artifact, as the catalog records them and the bucket keys them. */
  async function storedParts(id: string): Promise<StoredPart[]> {
    const [row] = await catalogSql.query('SELECT b.location, b.parts FROM sluice.artifacts a JOIN sluice.blobs b ON b.hash = a.hash WHERE a.id = $1', [id]);
    expect(row, `no catalog row for ${id}`).toBeDefined();
    const parts = JSON.parse(row!.parts as string) as { name: string; sha256: string; bytes: number }[];
    return parts.map((p) => ({ key: `${PREFIX}/objects/${row!.location as string}/${p.name}`, sha256: p.sha256, bytes: p.bytes }));
  }

  async function objectBytes(key: string): Promise<Buffer> {
    const out = await bucket.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  }

  /** Every page of a cursor walk, as pages: the page boundaries must agree too. */
  async function pages(server: TestServer, id: string, body: Record<string, unknown>): Promise<unknown[][][]> {
    const all: unknown[][][] = [];
    let cursor: string | undefined;
    do {
      const r = await server.request(`/api/artifacts/${id}/read`, { body: { ...body, ...(cursor === undefined ? {} : { cursor }) } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      all.push(r.body.data.rows);
      cursor = r.body.data.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return all;
  }

  it('answers the query, metadata, pages, a filter, an aggregate, CSV and JSONL exactly as the default store does', async () => {
    const { id: _r, expiresAt: _re, ...remoteArtifact } = answers.remote.artifact;
    const { id: _l, expiresAt: _le, ...localArtifact } = answers.local.artifact;
    expect(remoteArtifact).toEqual(localArtifact);
    expect(answers.remote.preview).toEqual(answers.local.preview);
    expect(answers.remote.completeness).toEqual(answers.local.completeness);

    const meta = async (server: TestServer, id: string) => {
      const r = await server.request(`/api/artifacts/${id}`);
      expect(r.status).toBe(200);
      const { id: _id, createdAt: _c, expiresAt: _e, ...rest } = r.body.data;
      return rest;
    };
    expect(await meta(remote, ids.remote)).toEqual(await meta(local, ids.local));

    const walk = { limit: 700 };
    const remotePages = await pages(remote, ids.remote, walk);
    expect(remotePages.map((p) => p.length)).toEqual([700, 700, 700, 700, 200]);
    expect(remotePages).toEqual(await pages(local, ids.local, walk));

    const filtered = {
      limit: 90,
      columns: ['id', 'amount', 'at', 'note'],
      filters: [
        { column: 'region', op: 'eq', value: 'north' },
        { column: 'amount', op: 'gt', value: 1000 },
      ],
      sort: [{ column: 'amount', direction: 'desc' }],
    };
    const remoteFiltered = await pages(remote, ids.remote, filtered);
    expect(remoteFiltered.flat().length).toBeGreaterThan(90);
    expect(remoteFiltered).toEqual(await pages(local, ids.local, filtered));

    const aggregate = {
      groupBy: ['region', 'flag'],
      metrics: [{ fn: 'count' }, { fn: 'sum', column: 'amount' }, { fn: 'sum', column: 'big' }, { fn: 'avg', column: 'amount' }, { fn: 'min', column: 'at' }, { fn: 'count_distinct', column: 'note' }],
      filters: [{ column: 'id', op: 'between', value: [100, 2500] }],
    };
    const remoteAgg = await remote.request(`/api/artifacts/${ids.remote}/aggregate`, { body: aggregate });
    const localAgg = await local.request(`/api/artifacts/${ids.local}/aggregate`, { body: aggregate });
    expect(remoteAgg.status, JSON.stringify(remoteAgg.body)).toBe(200);
    expect(remoteAgg.body.data.rows.length).toBe(8);
    expect(remoteAgg.body).toEqual(localAgg.body);

    for (const format of ['csv', 'jsonl']) {
      const r = await remote.request(`/api/artifacts/${ids.remote}/download?format=${format}`);
      const l = await local.request(`/api/artifacts/${ids.local}/download?format=${format}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(l.headers.get('content-type'));
      // A JSONL body parses as one JSON value per line only in pieces: compare the text, byte for byte.
      const text = (x: { body: unknown }) => (typeof x.body === 'string' ? x.body : JSON.stringify(x.body));
      expect(text(r).split('\n').length).toBe(format === 'csv' ? 3002 : 3001);
      expect(text(r)).toBe(text(l));
    }
  });

  it('answers a one-part Parquet download with a 307 to a short-lived link a plain client can follow, and a stranger with 404 and no link', async () => {
    const [part, ...more] = await storedParts(ids.remote);
    expect(more).toEqual([]);
    const r = await getJson(`${remote.sluice.url}/api/artifacts/${ids.remote}/download?format=parquet`, { token: TOKENS.admin });
    expect(r.status).toBe(307);
    // A link is for this caller, now: no cache along the way may keep it.
    expect(r.headers.get('cache-control')).toBe('no-store');
    const location = r.headers.get('location');
    expect(location).not.toBeNull();
    const link = new URL(location!);
    const expires = Number(link.searchParams.get('X-Amz-Expires'));
    expect(expires).toBeGreaterThan(0);
    expect(expires).toBeLessThanOrEqual(900);

    // A different client: no token, no SDK, no cookie; only the link.
    const fetched = await fetch(location!);
    expect(fetched.status).toBe(200);
    const bytes = Buffer.from(await fetched.arrayBuffer());
    expect(bytes.length).toBe(part!.bytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(part!.sha256);
    expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
    expect(bytes.subarray(-4).toString()).toBe('PAR1');

    const unknownId = `art_${randomBytes(16).toString('hex')}`;
    const refusals = [
      await getJson(`${remote.sluice.url}/api/artifacts/${ids.remote}/download?format=parquet`, { token: TOKENS.other }),
      await getJson(`${remote.sluice.url}/api/artifacts/${unknownId}/download?format=parquet`, { token: TOKENS.admin }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(404);
      expect(refused.body.errorCode).toBe('NOT_FOUND');
      expect(refused.headers.get('location')).toBeNull();
      expect(refused.text).not.toContain('X-Amz');
      expect(refused.text).not.toContain(s3.bucket);
    }
  });

  it('keeps the parts in the bucket, and in the data dir only cached copies of them', async () => {
    const parts = await storedParts(ids.remote);
    const keys = await listKeys(bucket, s3.bucket, PREFIX);
    for (const part of parts) {
      expect(keys).toContain(part.key);
      expect(createHash('sha256').update(await objectBytes(part.key)).digest('hex')).toBe(part.sha256);
    }
    const files = filesUnder(remote.dataDir);
    const parquet = files.filter((f) => f.endsWith('.parquet'));
    // The reads of the test before downloaded every part once; nothing else in the data dir is Parquet.
    expect(parquet.sort()).toEqual(parts.map((p) => join('cache', 'parts', `${p.sha256}.parquet`)).sort());
    for (const part of parts) expect(createHash('sha256').update(readFileSync(join(remote.dataDir, 'cache', 'parts', `${part.sha256}.parquet`))).digest('hex')).toBe(part.sha256);
    // No local catalog and no local objects: both halves of the store are remote.
    expect(existsSync(join(remote.dataDir, 'artifacts', 'catalog.sqlite'))).toBe(false);
    expect(existsSync(join(remote.dataDir, 'artifacts', 'objects'))).toBe(false);
    expect(files.filter((f) => f.startsWith(join('artifacts', 'staging')))).toEqual([]);
  });

  it.each([
    ['one byte changed (same size)', 'flipped', (b: Buffer) => Buffer.concat([b.subarray(0, b.length >> 1), Buffer.from([b[b.length >> 1]! ^ 0xff]), b.subarray((b.length >> 1) + 1)])],
    ['cut short', 'short', (b: Buffer) => b.subarray(0, b.length - 100)],
    ['grown', 'grown', (b: Buffer) => Buffer.concat([b, Buffer.alloc(100, 0x41)])],
  ])('answers ARTIFACT_CORRUPT, never INTERNAL and never data, for a part damaged in the bucket: %s', async (_how, tag, damage) => {
    // A result of its own (the tag is in it), so its part is stored once and was never read into the cache.
    const id = await createArtifact(remote, `select id, amount, note, '${tag}' as tag from ${SCHEMA}.facts where id <= 1500 order by id`);
    const [part] = await storedParts(id);
    const original = await objectBytes(part!.key);
    expect(original.length).toBe(part!.bytes);
    await bucket.send(new PutObjectCommand({ Bucket: s3.bucket, Key: part!.key, Body: damage(original) }));

    const attempts = [
      () => remote.request(`/api/artifacts/${id}/read`, { body: { limit: 10 } }),
      // Again: a failed check must not have left the bad bytes in the cache as if verified.
      () => remote.request(`/api/artifacts/${id}/read`, { body: { limit: 10, filters: [{ column: 'id', op: 'lt', value: 5 }] } }),
      () => remote.request(`/api/artifacts/${id}/aggregate`, { body: { metrics: [{ fn: 'count' }] } }),
      () => remote.request(`/api/artifacts/${id}/download?format=csv`),
      () => remote.request(`/api/artifacts/${id}/download?format=jsonl`),
    ];
    for (const attempt of attempts) {
      const r = await attempt();
      expect(r.status, JSON.stringify(r.body)).toBe(500);
      expect(r.body.errorCode).toBe('ARTIFACT_CORRUPT');
      expect(r.body.data).toBeNull();
      expect(JSON.stringify(r.body)).not.toContain(s3.bucket);
    }
    expect(filesUnder(remote.dataDir)).not.toContain(join('cache', 'parts', `${part!.sha256}.parquet`));
    // The metadata is the catalog's and stays readable; the artifact is still listed as it was.
    expect((await remote.request(`/api/artifacts/${id}`)).status).toBe(200);
  });
});
