/**
 * Portable sessions: a session exported from one Sluice imports into
 * another (its own data dir and catalog) and reads the same; every kind of
 * bad bundle imports nothing (no catalog row, no stored upload, no usage);
 * another principal's session cannot be exported; an import past the quota
 * is QUOTA_EXCEEDED with nothing imported.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../../helpers/server.ts';
import { catalogCounts, exportBundle, importBundle, storedLocations, tar, untar, type TarEntry } from './bundle-tools.ts';

const WIDE_SQL = `select g::int8 as id, (g % 7)::int4 as bucket, 'v' || g as label, g * 1.5 as half, null::text as nothing from generate_series(1, 2500) g`;
const SMALL_SQL = `select g::int4 as n, 'x' || g as name from generate_series(1, 40) g`;

describe('session export and import', () => {
  let source: TestServer;
  let target: TestServer;
  let bundle: Buffer;
  let entries: TarEntry[];
  const ids: string[] = [];

  async function pageRows(server: TestServer, id: string, token: string) {
    const rows: unknown[] = [];
    let cursor: string | null = null;
    let columns: unknown;
    do {
      const r = await server.request(`/api/artifacts/${id}/read`, { body: cursor === null ? { limit: 1000 } : { limit: 1000, cursor }, token });
      expect(r.status).toBe(200);
      columns = r.body.data.columns;
      rows.push(...r.body.data.rows);
      cursor = r.body.data.nextCursor;
    } while (cursor !== null);
    return { columns, rows };
  }

  /** Nothing of a refused import may remain: no rows, no uploads, no usage, no scratch. */
  async function expectNothingImported(before: { artifacts: number; blobs: number }, locations: string[], token: string) {
    expect(catalogCounts(target)).toEqual(before);
    expect(storedLocations(target)).toEqual(locations);
    const sessions = await target.request('/api/sessions', { token });
    expect(sessions.body.data.sessions).toEqual([]);
    expect((await target.request('/api/usage', { token })).body.data.principal).toMatchObject({ artifacts: 0, logicalBytes: 0 });
    const staging = join(target.dataDir, 'artifacts', 'staging');
    expect(readdirSync(staging)).toEqual([]);
  }

  beforeAll(async () => {
    source = await startTestServer();
    ids.push(await createArtifact(source, WIDE_SQL, TOKENS.analyst));
    ids.push(await createArtifact(source, SMALL_SQL, TOKENS.analyst));
    const moved = await source.request('/api/sessions/default/copy', { body: { targetSessionId: 'trip' }, token: TOKENS.analyst });
    expect(moved.status).toBe(200);
    const exported = await exportBundle(source, 'trip', TOKENS.analyst);
    expect(exported.status).toBe(200);
    expect(exported.type).toBe('application/x-tar');
    bundle = exported.bytes;
    entries = await untar(bundle);
    // The copies in "trip" are the source artifacts of the bundle.
    ids.splice(0, ids.length, ...moved.body.data.mapping.map((m: { targetArtifactId: string }) => m.targetArtifactId));
    const logical = JSON.parse(entries[0]!.data.toString()).artifacts.reduce((s: number, a: { sizeBytes: number }) => s + a.sizeBytes, 0);
    // Room for one import of the bundle, not for two.
    target = await startTestServer({ SLUICE_PRINCIPAL_QUOTA_BYTES: String(Math.floor(logical * 1.5)) });
  }, 240_000);

  afterAll(async () => {
    await source?.stop();
    await target?.stop();
  });

  it('writes manifest.json first, then each part once under its SHA-256', () => {
    expect(entries[0]!.name).toBe('manifest.json');
    const manifest = JSON.parse(entries[0]!.data.toString());
    expect(manifest).toMatchObject({ format: 'sluice-session', version: 1, sessionId: 'trip' });
    // Copies made at one instant: their order is their ids'.
    expect(manifest.artifacts.map((a: { id: string }) => a.id).sort()).toEqual([...ids].sort());
    const parts = entries.slice(1);
    expect(parts.length).toBeGreaterThan(0);
    for (const part of parts) {
      const sha = /^parts\/([0-9a-f]{64})\.parquet$/.exec(part.name)?.[1];
      expect(sha).toBeDefined();
      expect(createHash('sha256').update(part.data).digest('hex')).toBe(sha);
    }
    const referenced = new Set(manifest.artifacts.flatMap((a: { parts: { sha256: string }[] }) => a.parts.map((p) => p.sha256)));
    expect(new Set(parts.map((p) => p.name.slice(6, 70)))).toEqual(referenced);
    const wide = manifest.artifacts.find((a: { rowCount: number }) => a.rowCount === 2500);
    expect(wide.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'bucket', 'label', 'half', 'nothing']);
  });

  it('never exports another principal\u2019s session, nor one that holds nothing', async () => {
    expect((await exportBundle(source, 'trip', TOKENS.other)).status).toBe(404);
    const none = await source.request('/api/sessions/nothing-here/export', { token: TOKENS.analyst });
    expect(none.status).toBe(404);
    expect(none.body.errorCode).toBe('NOT_FOUND');
    expect((await source.request('/api/sessions/..%2Fetc/export', { token: TOKENS.analyst })).body.errorCode).toBe('VALIDATION_ERROR');
  });

  it('answers HEAD with a GET\u2019s headers and no body, and stops the export behind it without reporting a failure', async () => {
    const logged = vi.spyOn(console, 'error');
    try {
      const r = await fetch(`${source.sluice.url}/api/sessions/trip/export`, { method: 'HEAD', headers: { 'x-token': TOKENS.analyst } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/x-tar');
      expect(r.headers.get('content-disposition')).toBe('attachment; filename="trip.sluice.tar"');
      expect((await r.arrayBuffer()).byteLength).toBe(0);
      // The writer behind the cancelled pack ends on its next entry; a failure would be logged by then.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(logged.mock.calls.map((call) => String(call[0]))).toEqual([]);
    } finally {
      logged.mockRestore();
    }
    // The export still works whole afterwards: the same entries, the parts byte for byte.
    const again = await untar((await exportBundle(source, 'trip', TOKENS.analyst)).bytes);
    expect(again.map((e) => e.name)).toEqual(entries.map((e) => e.name));
    expect(again.slice(1).every((e, i) => e.data.equals(entries[i + 1]!.data))).toBe(true);
  });

  const cases: [string, string, () => Promise<Buffer>][] = [
    ['a flipped byte', 'HASH_MISMATCH', async () => {
      const copy = entries.map((e) => ({ ...e, data: Buffer.from(e.data) }));
      const part = copy[1]!;
      part.data[Math.floor(part.data.length / 2)]! ^= 0xff;
      return tar(copy);
    }],
    ['a missing part', 'MISSING_PART', () => tar(entries.slice(0, -1))],
    ['an extra part', 'EXTRA_PART', () => {
      const stray = Buffer.from('not referenced');
      return tar([...entries, { name: `parts/${createHash('sha256').update(stray).digest('hex')}.parquet`, data: stray }]);
    }],
    ['a part given twice', 'DUPLICATE_PART', () => tar([...entries, entries[1]!])],
    ['a future format version', 'UNSUPPORTED_VERSION', () => {
      const manifest = JSON.parse(entries[0]!.data.toString());
      return tar([{ name: 'manifest.json', data: Buffer.from(JSON.stringify({ ...manifest, version: 2 })) }, ...entries.slice(1)]);
    }],
    ['a path-traversal name', 'BAD_ENTRY', () => tar([...entries, { name: '../../escape.parquet', data: Buffer.from('x') }])],
    ['a directory entry', 'BAD_ENTRY', () => tar([...entries.slice(0, 1), { name: 'parts/', data: Buffer.alloc(0), type: 'directory' }, ...entries.slice(1)])],
    ['the manifest not first', 'MANIFEST_NOT_FIRST', () => tar([...entries.slice(1), entries[0]!])],
    ['a truncated tar', 'TRUNCATED', async () => bundle.subarray(0, Math.floor(bundle.length * 0.6))],
    ['a manifest column type that is not one Sluice writes', 'BAD_MANIFEST', () => {
      const manifest = JSON.parse(entries[0]!.data.toString());
      manifest.artifacts[0].columns[0].duckType = "BIGINT); DROP TABLE x; --";
      return tar([{ name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest)) }, ...entries.slice(1)]);
    }],
    ['a manifest whose row count lies', 'BAD_MANIFEST', () => {
      const manifest = JSON.parse(entries[0]!.data.toString());
      manifest.artifacts[1].rowCount += 1;
      return tar([{ name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest)) }, ...entries.slice(1)]);
    }],
    ['something that is not a tar', 'NOT_A_TAR', async () => Buffer.alloc(4096, 0x41)],
  ];

  for (const [what, reason, make] of cases) {
    it(`imports nothing from a bundle with ${what} (${reason})`, async () => {
      const before = catalogCounts(target);
      const locations = storedLocations(target);
      const r = await importBundle(target, 'restored', TOKENS.other, await make());
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION_ERROR');
      expect(r.body.error.details.reason).toBe(reason);
      expect(JSON.stringify(r.body)).not.toContain(target.dataDir);
      await expectNothingImported(before, locations, TOKENS.other);
    });
  }

  it('refuses a body that is not sent as a tar', async () => {
    const r = await importBundle(target, 'restored', TOKENS.other, bundle, 'application/json');
    expect(r.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', error: { details: { reason: 'NOT_A_TAR' } } });
  });

  it('imports into another Sluice, whose pages read the same', async () => {
    const r = await importBundle(target, 'restored', TOKENS.analyst, bundle);
    expect(r.status).toBe(200);
    const mapping: { sourceArtifactId: string; targetArtifactId: string }[] = r.body.data.mapping;
    expect(mapping.map((m) => m.sourceArtifactId).sort()).toEqual([...ids].sort());
    for (const { sourceArtifactId, targetArtifactId } of mapping) {
      expect(await pageRows(target, targetArtifactId, TOKENS.analyst)).toEqual(await pageRows(source, sourceArtifactId, TOKENS.analyst));
      const meta = (await target.request(`/api/artifacts/${targetArtifactId}`, { token: TOKENS.analyst })).body.data;
      const original = (await source.request(`/api/artifacts/${sourceArtifactId}`, { token: TOKENS.analyst })).body.data;
      expect(meta).toMatchObject({ sessionId: 'restored', sql: original.sql, rowCount: original.rowCount, sizeBytes: original.sizeBytes, coverage: original.coverage });
      // Another principal of the target never sees them.
      expect((await target.request(`/api/artifacts/${targetArtifactId}`, { token: TOKENS.other })).status).toBe(404);
    }
    const sessions = (await target.request('/api/sessions', { token: TOKENS.analyst })).body.data.sessions;
    expect(sessions).toEqual([expect.objectContaining({ sessionId: 'restored', artifacts: 2 })]);
  });

  it('refuses an import past the quota with QUOTA_EXCEEDED, importing nothing', async () => {
    const before = catalogCounts(target);
    const locations = storedLocations(target);
    const usage = (await target.request('/api/usage', { token: TOKENS.analyst })).body.data.principal;
    const r = await importBundle(target, 'again', TOKENS.analyst, bundle);
    expect(r.status).toBe(403);
    expect(r.body.errorCode).toBe('QUOTA_EXCEEDED');
    expect(catalogCounts(target)).toEqual(before);
    expect(storedLocations(target)).toEqual(locations);
    expect((await target.request('/api/usage', { token: TOKENS.analyst })).body.data.principal).toEqual(usage);
    expect((await target.request('/api/usage?sessionId=again', { token: TOKENS.analyst })).body.data.session).toEqual({ sessionId: 'again', artifacts: 0, logicalBytes: 0 });
  });
});
