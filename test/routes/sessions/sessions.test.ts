/**
 * The everyday session routes and the admins' store routes, over HTTP:
 * GET /api/sessions, copy of chosen artifacts, /api/usage?sessionId=, a
 * collection round on request, and the store check (over HTTP and as
 * `npm run store:check`) finding a missing, a corrupt and orphaned parts.
 * Each is tried with bad input and with another principal's data.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../../helpers/server.ts';
import { withCatalog } from './bundle-tools.ts';

const run = promisify(execFile);

describe('sessions, usage and store maintenance', () => {
  let server: TestServer;
  const made: Record<string, { id: string; sizeBytes: number }> = {};

  async function artifact(name: string, sql: string, sessionId: string, token: string) {
    const r = await server.request('/api/queries', { body: { sql, materialize: 'always', sessionId }, token });
    expect(r.body.data?.artifact?.decision).toBe('CREATED');
    made[name] = { id: r.body.data.artifact.id, sizeBytes: r.body.data.artifact.sizeBytes };
  }

  beforeAll(async () => {
    server = await startTestServer();
    await artifact('a1', 'select g::int8 as id from generate_series(1, 100) g', 's1', TOKENS.analyst);
    await artifact('a2', `select 'x' || g as t from generate_series(1, 50) g`, 's1', TOKENS.analyst);
    await artifact('a3', 'select g::int4 as n from generate_series(1, 7) g', 's2', TOKENS.analyst);
    await artifact('o1', 'select g::int8 as id from generate_series(1, 30) g', 's1', TOKENS.other);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('lists only the caller\u2019s sessions, with what each holds', async () => {
    const mine = (await server.request('/api/sessions', { token: TOKENS.analyst })).body.data.sessions;
    expect(mine.map((s: { sessionId: string }) => s.sessionId).sort()).toEqual(['s1', 's2']);
    const s1 = mine.find((s: { sessionId: string }) => s.sessionId === 's1');
    expect(s1).toMatchObject({ artifacts: 2, logicalBytes: made.a1!.sizeBytes + made.a2!.sizeBytes });
    expect(Number.isNaN(Date.parse(s1.lastUsedAt))).toBe(false);
    const theirs = (await server.request('/api/sessions', { token: TOKENS.other })).body.data.sessions;
    expect(theirs).toEqual([expect.objectContaining({ sessionId: 's1', artifacts: 1, logicalBytes: made.o1!.sizeBytes })]);
    expect((await server.request('/api/sessions', { token: TOKENS.reader })).body.data.sessions).toEqual([]);
    expect((await server.request('/api/sessions', { token: null })).status).toBe(401);
  });

  it('copies only the artifacts named, and nothing when one is not the caller\u2019s in that session', async () => {
    const copy = await server.request('/api/sessions/s1/copy', { body: { targetSessionId: 's3', artifactIds: [made.a1!.id] }, token: TOKENS.analyst });
    expect(copy.status).toBe(200);
    expect(copy.body.data.mapping).toEqual([{ sourceArtifactId: made.a1!.id, targetArtifactId: expect.any(String) }]);
    for (const ids of [[made.a2!.id, made.o1!.id], [made.a3!.id], ['art_unknown']]) {
      const refused = await server.request('/api/sessions/s1/copy', { body: { targetSessionId: 's4', artifactIds: ids }, token: TOKENS.analyst });
      expect(refused.status).toBe(404);
      expect(refused.body.errorCode).toBe('NOT_FOUND');
    }
    for (const body of [{ targetSessionId: 's4', artifactIds: [] }, { targetSessionId: 's4', artifactIds: 'x' }, { targetSessionId: 's4', artifactIds: [made.a1!.id], extra: 1 }]) {
      expect((await server.request('/api/sessions/s1/copy', { body, token: TOKENS.analyst })).body.errorCode).toBe('VALIDATION_ERROR');
    }
    const sessions = (await server.request('/api/sessions', { token: TOKENS.analyst })).body.data.sessions.map((s: { sessionId: string }) => s.sessionId);
    expect(sessions.sort()).toEqual(['s1', 's2', 's3']);
    // The other principal's own session s1 is untouched by all of this.
    expect((await server.request('/api/usage?sessionId=s1', { token: TOKENS.other })).body.data.session).toEqual({ sessionId: 's1', artifacts: 1, logicalBytes: made.o1!.sizeBytes });
  });

  it('answers one session\u2019s usage with ?sessionId=, and refuses a bad one', async () => {
    const usage = (await server.request('/api/usage?sessionId=s1', { token: TOKENS.analyst })).body.data;
    expect(usage.session).toEqual({ sessionId: 's1', artifacts: 2, logicalBytes: made.a1!.sizeBytes + made.a2!.sizeBytes });
    expect(usage.workspace).toBeUndefined();
    expect((await server.request('/api/usage', { token: TOKENS.analyst })).body.data.session).toBeUndefined();
    expect((await server.request('/api/usage?sessionId=nowhere', { token: TOKENS.analyst })).body.data.session).toEqual({ sessionId: 'nowhere', artifacts: 0, logicalBytes: 0 });
    expect((await server.request('/api/usage?sessionId=bad%2Fid', { token: TOKENS.analyst })).body.errorCode).toBe('VALIDATION_ERROR');
  });

  it('runs a collection round for admins only, answering what it released', async () => {
    expect((await server.request('/api/admin/maintenance', { method: 'POST', token: TOKENS.analyst })).body.errorCode).toBe('FORBIDDEN');
    expect((await server.request('/api/admin/maintenance', { method: 'POST', token: TOKENS.analyst })).status).toBe(403);
    await server.request('/api/sessions/s2', { method: 'DELETE', token: TOKENS.analyst });
    // Released long ago, as far as the grace period can tell.
    withCatalog(server, (db) => db.prepare(`UPDATE blobs SET released_at = '2000-01-01T00:00:00.000Z' WHERE refs <= 0`).run());
    const round = await server.request('/api/admin/maintenance', { method: 'POST', token: TOKENS.admin });
    expect(round.status).toBe(200);
    expect(round.body.data).toMatchObject({ ran: true, blobs: 1, bytes: made.a3!.sizeBytes });
    expect(typeof round.body.data.tombstones).toBe('number');
    const again = await server.request('/api/admin/maintenance', { method: 'POST', token: TOKENS.admin });
    expect(again.body.data).toMatchObject({ blobs: 0, bytes: 0 });
  });

  describe('store check', () => {
    const objects = () => join(server.dataDir, 'artifacts', 'objects');
    let corrupted: { location: string; name: string };
    let removed: { location: string; name: string };
    const orphanLocation = `ab/ab${'0'.repeat(62)}`;

    async function walk(token: string = TOKENS.admin) {
      const found = { missing: [] as any[], corrupt: [] as any[], orphaned: [] as any[], rounds: 0 };
      let cursor: string | undefined;
      do {
        const r = await server.request('/api/admin/store-check', { body: cursor === undefined ? { limit: 1 } : { limit: 1, cursor }, token });
        expect(r.status).toBe(200);
        found.rounds++;
        for (const key of ['missing', 'corrupt', 'orphaned'] as const) found[key].push(...r.body.data[key]);
        cursor = r.body.data.nextCursor ?? undefined;
      } while (cursor !== undefined && found.rounds < 100);
      return found;
    }

    it('finds nothing wrong in a sound store, one blob per round', async () => {
      const found = await walk();
      expect(found).toMatchObject({ missing: [], corrupt: [], orphaned: [] });
      expect(found.rounds).toBeGreaterThan(2);
    });

    it('is for admins only, and refuses a cursor it did not hand out', async () => {
      const forbidden = await server.request('/api/admin/store-check', { body: {}, token: TOKENS.analyst });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.errorCode).toBe('FORBIDDEN');
      expect((await server.request('/api/admin/store-check', { body: { cursor: 'bm90LWEtY3Vyc29y' } })).body.errorCode).toBe('INVALID_CURSOR');
      expect((await server.request('/api/admin/store-check', { body: { limit: 0 } })).body.errorCode).toBe('VALIDATION_ERROR');
    });

    it('reports a deleted part as missing, a flipped byte as corrupt, and stray files and uploads as orphaned', async () => {
      const blobs = withCatalog(server, (db) => db.prepare('SELECT location, parts FROM blobs WHERE refs > 0 ORDER BY hash').all() as { location: string; parts: string }[]);
      expect(blobs.length).toBeGreaterThanOrEqual(2);
      corrupted = { location: blobs[0]!.location, name: JSON.parse(blobs[0]!.parts)[0].name };
      removed = { location: blobs[1]!.location, name: JSON.parse(blobs[1]!.parts)[0].name };
      const file = join(objects(), corrupted.location, corrupted.name);
      const bytes = readFileSync(file);
      bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
      writeFileSync(file, bytes);
      rmSync(join(objects(), removed.location, removed.name));
      writeFileSync(join(objects(), corrupted.location, 'stray.bin'), 'stray');
      mkdirSync(join(objects(), orphanLocation), { recursive: true });
      writeFileSync(join(objects(), orphanLocation, 'part-00000.parquet'), 'left behind');
      // Older than the grace period: an upload in flight would be young.
      const old = new Date('2020-01-01T00:00:00Z');
      utimesSync(join(objects(), orphanLocation, 'part-00000.parquet'), old, old);
      utimesSync(join(objects(), orphanLocation), old, old);
      const found = await walk();
      expect(found.corrupt).toEqual([expect.objectContaining(corrupted)]);
      expect(found.missing).toEqual([expect.objectContaining(removed)]);
      expect(found.orphaned).toEqual(expect.arrayContaining([{ location: corrupted.location, name: 'stray.bin' }, { location: orphanLocation }]));
      expect(found.orphaned).toHaveLength(2);
      expect(JSON.stringify(found)).not.toContain(server.dataDir);
    });

    it('npm run store:check reports the same and exits 1', async () => {
      const failure = await run(process.execPath, ['--import', 'tsx', 'scripts/store-check.ts', '--limit', '2'], {
        env: { ...process.env, SLUICE_DATA_DIR: server.dataDir, SLUICE_CATALOG_URL: '', SLUICE_ARTIFACT_URL: '' },
      }).then(
        () => null,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failure?.code).toBe(1);
      const lines = failure!.stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.filter((l) => l.problem === 'corrupt')).toEqual([expect.objectContaining({ ...corrupted, problem: 'corrupt' })]);
      expect(lines.filter((l) => l.problem === 'missing')).toEqual([expect.objectContaining({ ...removed, problem: 'missing' })]);
      expect(lines.filter((l) => l.problem === 'orphaned')).toHaveLength(2);
      expect(lines.at(-1).summary).toMatchObject({ missing: 1, corrupt: 1, orphaned: 2 });
    }, 120_000);
  });
});
