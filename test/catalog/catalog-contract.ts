/**
 * The catalog contract, as one suite every implementation runs: a factory
 * gives a fresh, empty catalog on a hand-moved clock, and each test checks
 * exact counters, never just "something changed".
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry, AuditPosition, Catalog, HistoryEntry } from '../../src/catalog/catalog.ts';
import { Clock, commitOk, commitRequest, created, errorOf, hashOf, T0 } from './catalog-fixtures.ts';

export interface CatalogSetup {
  now: () => Date;
  principalQuotaBytes?: number;
  workspaceQuotaBytes?: number;
}

export type CatalogFactory = (setup: CatalogSetup) => Promise<Catalog>;

const BIG = 1e12;
const HOSTILE = "bob' OR '1'='1";

export function testCatalog(name: string, factory: CatalogFactory): void {
  describe(`catalog contract: ${name}`, () => {
    const open: Catalog[] = [];
    const fresh = async (clock: Clock, quotas: { principal?: number; workspace?: number } = {}) => {
      const catalog = await factory({ now: clock.now, principalQuotaBytes: quotas.principal ?? BIG, workspaceQuotaBytes: quotas.workspace ?? BIG });
      open.push(catalog);
      return catalog;
    };
    afterEach(async () => {
      for (const catalog of open.splice(0)) await catalog.close();
    });

    it('commits and finds an artifact for its owner only, never leaking it to another principal', async () => {
      const catalog = await fresh(new Clock());
      const outcome = created(await catalog.commit(commitRequest()));
      expect(outcome).toMatchObject({ repeated: false, liveLocation: commitRequest().blob.location, staleLocation: null });
      expect(outcome.artifact).toMatchObject({ state: 'COMMITTED', principal: 'alice', sessionId: 'default', sizeBytes: 100, rowCount: 10, createdAt: T0.toISOString(), expiresAt: '2026-03-01T13:00:00.000Z' });
      const found = await catalog.find('alice', outcome.artifact.id);
      expect(found?.meta).toEqual(outcome.artifact);
      expect(found?.blob).toEqual(commitRequest().blob);
      // The sweep of uploads asks by location: the committed one is known, any other is not.
      expect(await catalog.blobAtLocation(commitRequest().blob.location)).toEqual(commitRequest().blob);
      expect(await catalog.blobAtLocation('ab/not-an-upload')).toBeUndefined();
      for (const other of ['bob', HOSTILE]) {
        expect(await catalog.find(other, outcome.artifact.id)).toBeUndefined();
        expect(await catalog.delete(other, outcome.artifact.id)).toBe(false);
        expect((await catalog.list(other, { limit: 10 })).artifacts).toEqual([]);
        expect((await catalog.copySession(other, 'default', 'stolen', 60)).mapping).toEqual([]);
        expect(await catalog.retireSession(other, 'default')).toEqual({ releasedArtifacts: 0, releasedBytes: 0 });
      }
      expect((await catalog.find('alice', outcome.artifact.id))?.meta.state).toBe('COMMITTED');
      expect(await catalog.find('alice', 'art_missing')).toBeUndefined();
    });

    it('lists readable artifacts newest first, page by page, each exactly once', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        // Pairs share a creation time, so ties are broken by id and still never repeat or skip.
        if (i % 2 === 0) clock.advance(1000);
        ids.push((await commitOk(catalog, { content: `c${i}`, sessionId: i < 5 ? 'default' : 'other' })).id);
      }
      const gone = await commitOk(catalog, { content: 'deleted' });
      await catalog.delete('alice', gone.id);
      await commitOk(catalog, { content: 'short', ttlSeconds: 1 });
      clock.advance(1000);
      const seen: string[] = [];
      let page = await catalog.list('alice', { limit: 3 });
      seen.push(...page.artifacts.map((a) => a.id));
      while (page.next !== null) {
        page = await catalog.list('alice', { limit: 3, after: page.next });
        seen.push(...page.artifacts.map((a) => a.id));
      }
      const expected = (await Promise.all(ids.map((id) => catalog.find('alice', id))))
        .map((r) => r!.meta)
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
        .map((m) => m.id);
      expect(seen).toEqual(expected);
      const other = await catalog.list('alice', { sessionId: 'other', limit: 10 });
      expect(other).toEqual({ artifacts: [expect.objectContaining({ id: ids[5] }), expect.objectContaining({ id: ids[6] })].reverse(), next: null });
      expect((await errorOf(catalog.list('alice', { limit: 3, after: { createdAt: 'not a time', id: 'x' } }))).code).toBe('INVALID_CURSOR');
    });

    it('deletes idempotently, keeps a tombstone, gives the counts back and leaves the blob unreferenced', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const a = await commitOk(catalog);
      clock.advance(5000);
      expect(await catalog.delete('alice', a.id)).toBe(true);
      expect(await catalog.delete('alice', a.id)).toBe(true);
      expect((await catalog.find('alice', a.id))?.meta.state).toBe('DELETED');
      expect((await catalog.usage('alice')).principal).toMatchObject({ artifacts: 0, logicalBytes: 0 });
      expect((await catalog.usage('alice')).workspace).toMatchObject({ artifacts: 0, physicalBytes: 100 });
      expect((await catalog.unreferencedBlobs(clock.now(), 10)).map((b) => b.hash)).toEqual([hashOf('content-a')]);
    });

    it('reads an artifact past its TTL as EXPIRED at once, and expires in bounded rounds', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const metas = [];
      for (const content of ['x', 'y', 'z']) metas.push(await commitOk(catalog, { content, ttlSeconds: 60 }));
      const keeper = await commitOk(catalog, { content: 'keep', ttlSeconds: 120 });
      clock.advance(59_999);
      expect((await catalog.find('alice', metas[0]!.id))?.meta.state).toBe('COMMITTED');
      clock.advance(1);
      expect((await catalog.find('alice', metas[0]!.id))?.meta.state).toBe('EXPIRED');
      expect(await catalog.expireRound(2)).toEqual({ count: 2, more: true });
      expect(await catalog.expireRound(2)).toEqual({ count: 1, more: false });
      expect(await catalog.expireRound(2)).toEqual({ count: 0, more: false });
      expect((await catalog.usage('alice')).principal).toMatchObject({ artifacts: 1, logicalBytes: 100 });
      expect((await catalog.find('alice', keeper.id))?.meta.state).toBe('COMMITTED');
      expect((await catalog.unreferencedBlobs(clock.now(), 10)).map((b) => b.hash).sort()).toEqual(['x', 'y', 'z'].map(hashOf).sort());
    });

    it('keeps usage counters exact: logical per principal, physical per distinct blob', async () => {
      const catalog = await fresh(new Clock());
      await commitOk(catalog, { content: 'a', size: 100 });
      await commitOk(catalog, { content: 'a', size: 100, sessionId: 's2' });
      const b = await commitOk(catalog, { content: 'b', size: 50 });
      await commitOk(catalog, { content: 'a', size: 100, principal: 'bob' });
      expect(await catalog.usage('alice')).toEqual({
        principal: { artifacts: 3, logicalBytes: 250, quotaBytes: BIG },
        workspace: { artifacts: 4, physicalBytes: 150, quotaBytes: BIG },
      });
      expect((await catalog.usage('bob')).principal).toMatchObject({ artifacts: 1, logicalBytes: 100 });
      await catalog.delete('alice', b.id);
      const blob = await catalog.blob(hashOf('b'));
      expect(await catalog.dropBlob(blob!.hash, blob!.location)).toBe(true);
      expect(await catalog.dropBlob(blob!.hash, blob!.location)).toBe(false);
      expect((await catalog.usage('alice')).workspace).toMatchObject({ artifacts: 3, physicalBytes: 100 });
      expect((await catalog.usage('nobody')).principal).toMatchObject({ artifacts: 0, logicalBytes: 0 });
    });

    it('answers a repeated commit with the artifact it made, charged once, even at the quota', async () => {
      const catalog = await fresh(new Clock(), { principal: 100 });
      const first = created(await catalog.commit(commitRequest({ location: 'objects/a/upload-1' })));
      const again = created(await catalog.commit(commitRequest({ location: 'objects/a/upload-2' })));
      expect(again).toMatchObject({ repeated: true, liveLocation: 'objects/a/upload-1', staleLocation: null });
      expect(again.artifact).toEqual(first.artifact);
      expect((await catalog.usage('alice')).principal).toMatchObject({ artifacts: 1, logicalBytes: 100 });
      // Not the same commit: another session, SQL or datasource is a new artifact (here over the quota).
      for (const shape of [{ sessionId: 's2' }, { sql: 'select 2' }, { datasource: 'other' }]) {
        expect((await catalog.commit(commitRequest(shape))).decision).toBe('DENIED');
      }
      await catalog.delete('alice', first.artifact.id);
      const after = created(await catalog.commit(commitRequest()));
      expect(after.repeated).toBe(false);
      expect(after.artifact.id).not.toBe(first.artifact.id);
    });

    it('denies a commit over either quota and leaves every counter and row as it was', async () => {
      const catalog = await fresh(new Clock(), { principal: 150, workspace: 250 });
      await commitOk(catalog, { content: 'a', size: 100 });
      const before = await catalog.usage('alice');
      const denied = await catalog.commit(commitRequest({ content: 'b', size: 51 }));
      expect(denied).toMatchObject({ decision: 'DENIED', reason: 'QUOTA_EXCEEDED' });
      expect(await catalog.usage('alice')).toEqual(before);
      expect(await catalog.blob(hashOf('b'))).toBeUndefined();
      expect((await catalog.list('alice', { limit: 10 })).artifacts).toHaveLength(1);
      await commitOk(catalog, { content: 'b', size: 50 });
      await commitOk(catalog, { content: 'c', size: 100, principal: 'bob' });
      // The workspace is full (250 of 250): bob's own quota has room, the workspace has none.
      const full = await catalog.commit(commitRequest({ content: 'd', size: 1, principal: 'bob' }));
      expect(full).toMatchObject({ decision: 'DENIED', reason: 'QUOTA_EXCEEDED', message: expect.stringContaining('workspace') });
      expect((await catalog.usage('bob')).principal).toMatchObject({ artifacts: 1, logicalBytes: 100 });
      // Content already stored costs no physical bytes, so the full workspace still takes it.
      await commitOk(catalog, { content: 'a', size: 100, principal: 'carol' });
      expect((await catalog.usage('carol')).workspace).toMatchObject({ artifacts: 4, physicalBytes: 250 });
    });

    it('copies a session by reference and retires only that session’s references', async () => {
      const catalog = await fresh(new Clock(), { principal: 400 });
      const a = await commitOk(catalog, { content: 'a', size: 100 });
      const b = await commitOk(catalog, { content: 'b', size: 50 });
      const { mapping } = await catalog.copySession('alice', 'default', 'copy', 3600);
      expect(mapping.map((m) => m.sourceArtifactId).sort()).toEqual([a.id, b.id].sort());
      expect(await catalog.usage('alice')).toMatchObject({ principal: { artifacts: 4, logicalBytes: 300 }, workspace: { artifacts: 4, physicalBytes: 150 } });
      const copied = mapping.find((m) => m.sourceArtifactId === a.id)!.targetArtifactId;
      expect((await catalog.find('alice', copied))?.meta).toMatchObject({ sessionId: 'copy', sql: a.sql, sizeBytes: 100 });
      const over = await errorOf(catalog.copySession('alice', 'default', 'again', 3600));
      expect(over.code).toBe('QUOTA_EXCEEDED');
      expect((await catalog.usage('alice')).principal).toMatchObject({ artifacts: 4, logicalBytes: 300 });
      expect((await catalog.list('alice', { sessionId: 'again', limit: 10 })).artifacts).toEqual([]);
      expect((await errorOf(catalog.copySession('alice', 'copy', 'copy', 60))).code).toBe('VALIDATION_ERROR');
      expect(await catalog.retireSession('alice', 'default')).toEqual({ releasedArtifacts: 2, releasedBytes: 150 });
      expect(await catalog.retireSession('alice', 'default')).toEqual({ releasedArtifacts: 0, releasedBytes: 0 });
      expect((await catalog.find('alice', a.id))?.meta.state).toBe('DELETED');
      expect((await catalog.find('alice', copied))?.meta.state).toBe('COMMITTED');
      expect(await catalog.unreferencedBlobs(new Date(T0.getTime() + 1e9), 10)).toEqual([]);
      expect(await catalog.usage('alice')).toMatchObject({ principal: { artifacts: 2, logicalBytes: 150 }, workspace: { physicalBytes: 150 } });
    });

    it('lists a principal\u2019s sessions and one session\u2019s usage, and copies only the artifacts named', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const a = await commitOk(catalog, { content: 'a', size: 100 });
      clock.advance(1000);
      const b = await commitOk(catalog, { content: 'b', size: 50, sessionId: 's2' });
      const theirs = await commitOk(catalog, { content: 'c', size: 10, principal: 'bob' });
      expect(await catalog.sessions('alice')).toEqual([
        { sessionId: 's2', artifacts: 1, logicalBytes: 50, lastUsedAt: b.createdAt },
        { sessionId: 'default', artifacts: 1, logicalBytes: 100, lastUsedAt: a.createdAt },
      ]);
      expect(await catalog.sessions(HOSTILE)).toEqual([]);
      expect(await catalog.sessionUsage('alice', 'default')).toEqual({ sessionId: 'default', artifacts: 1, logicalBytes: 100 });
      expect(await catalog.sessionUsage('bob', 'default')).toEqual({ sessionId: 'default', artifacts: 1, logicalBytes: 10 });
      for (const ids of [[theirs.id], [b.id], [a.id, 'art_missing']]) {
        expect((await errorOf(catalog.copySession('alice', 'default', 'picked', 3600, ids))).code).toBe('NOT_FOUND');
      }
      expect(await catalog.sessionUsage('alice', 'picked')).toEqual({ sessionId: 'picked', artifacts: 0, logicalBytes: 0 });
      const { mapping } = await catalog.copySession('alice', 'default', 'picked', 3600, [a.id]);
      expect(mapping).toEqual([{ sourceArtifactId: a.id, targetArtifactId: expect.any(String) }]);
      expect((await catalog.usage('alice')).principal).toMatchObject({ artifacts: 3, logicalBytes: 250 });
      const exported = await catalog.sessionArtifacts('alice', 'default');
      expect(exported.map((r) => [r.meta.id, r.blob.hash])).toEqual([[a.id, hashOf('a')]]);
      expect(await catalog.sessionArtifacts('bob', 's2')).toEqual([]);
      clock.advance(3600_000);
      expect(await catalog.sessions('alice')).toEqual([]);
    });

    it('imports all of a bundle\u2019s artifacts in one transaction, or none past a quota', async () => {
      const catalog = await fresh(new Clock(), { principal: 300, workspace: 260 });
      await commitOk(catalog, { content: 'a', size: 100 });
      const imported = (content: string, size: number, id: string) => {
        const request = commitRequest({ content, size, location: `objects/${content}/imported` });
        return { sourceId: id, sql: request.sql, datasource: 'elsewhere', columns: request.columns, rowCount: 10, coverage: 'COMPLETE' as const, boundedBy: null, blob: request.blob };
      };
      const tooMuch = await catalog.importArtifacts({ principal: 'alice', sessionId: 'in', ttlSeconds: 60, artifacts: [imported('b', 100, 'x1'), imported('c', 120, 'x2')] });
      expect(tooMuch.decision).toBe('DENIED');
      expect(await catalog.usage('alice')).toMatchObject({ principal: { artifacts: 1, logicalBytes: 100 }, workspace: { artifacts: 1, physicalBytes: 100 } });
      expect(await catalog.blob(hashOf('b'))).toBeUndefined();
      // One blob known already (referenced where it is), one new, one referenced twice by the bundle.
      const done = await catalog.importArtifacts({ principal: 'alice', sessionId: 'in', ttlSeconds: 60, artifacts: [imported('a', 100, 'x1'), imported('b', 50, 'x2'), imported('b', 50, 'x3')] });
      if (done.decision !== 'CREATED') throw new Error(done.message);
      expect(done.mapping.map((m) => m.sourceArtifactId)).toEqual(['x1', 'x2', 'x3']);
      expect(done.liveLocations.sort()).toEqual([commitRequest({ content: 'a' }).blob.location, 'objects/b/imported'].sort());
      expect(await catalog.usage('alice')).toMatchObject({ principal: { artifacts: 4, logicalBytes: 300 }, workspace: { artifacts: 4, physicalBytes: 150 } });
      expect((await catalog.find('alice', done.mapping[2]!.targetArtifactId))?.meta).toMatchObject({ sessionId: 'in', datasource: 'elsewhere', sizeBytes: 50 });
      expect(await catalog.find('bob', done.mapping[0]!.targetArtifactId)).toBeUndefined();
      expect(await catalog.retireSession('alice', 'in')).toEqual({ releasedArtifacts: 3, releasedBytes: 200 });
      expect((await catalog.blobsAfter(null, 10)).map((b) => b.hash)).toEqual([hashOf('a'), hashOf('b')].sort());
      expect((await catalog.blobsAfter([hashOf('a'), hashOf('b')].sort()[0]!, 10)).length).toBe(1);
    });

    it('offers unreferenced blobs only past the watermark, and a revived blob is never dropped', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const hash = hashOf('content-a');
      const a = await commitOk(catalog, { location: 'objects/a/upload-1' });
      expect(await catalog.dropBlob(hash, 'objects/a/upload-1')).toBe(false);
      const released = clock.advance(1000);
      await catalog.delete('alice', a.id);
      expect(await catalog.unreferencedBlobs(new Date(released.getTime() - 1), 10)).toEqual([]);
      const [candidate] = await catalog.unreferencedBlobs(released, 10);
      expect(candidate).toMatchObject({ hash, location: 'objects/a/upload-1', sizeBytes: 100 });
      // A commit of the same content lands while a collector holds the candidate: it brings its own bytes.
      const revived = created(await catalog.commit(commitRequest({ location: 'objects/a/upload-2' })));
      expect(revived).toMatchObject({ repeated: false, liveLocation: 'objects/a/upload-2', staleLocation: 'objects/a/upload-1' });
      expect(await catalog.dropBlob(hash, candidate!.location)).toBe(false);
      expect((await catalog.find('alice', revived.artifact.id))?.blob?.location).toBe('objects/a/upload-2');
      expect(await catalog.unreferencedBlobs(clock.advance(1e6), 10)).toEqual([]);
      expect((await catalog.usage('alice')).workspace).toMatchObject({ physicalBytes: 100, artifacts: 1 });
      await catalog.delete('alice', revived.artifact.id);
      expect(await catalog.dropBlob(hash, 'objects/a/upload-2')).toBe(true);
      expect(await catalog.blob(hash)).toBeUndefined();
      expect((await catalog.usage('alice')).workspace).toMatchObject({ physicalBytes: 0, artifacts: 0 });
      expect((await catalog.find('alice', a.id))?.blob).toBeNull();
    });

    it('references a live blob where it is, telling the committer its own upload is not needed', async () => {
      const catalog = await fresh(new Clock());
      await commitOk(catalog, { location: 'objects/a/upload-1' });
      const second = created(await catalog.commit(commitRequest({ sessionId: 's2', location: 'objects/a/upload-2' })));
      expect(second).toMatchObject({ liveLocation: 'objects/a/upload-1', staleLocation: null, repeated: false });
    });

    it('purges tombstones past the retention in bounded rounds; their ids then answer nothing', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const metas = [];
      for (const content of ['p', 'q', 'r']) metas.push(await commitOk(catalog, { content }));
      const kept = await commitOk(catalog, { content: 'kept' });
      const deletedAt = clock.advance(1000);
      for (const meta of metas) await catalog.delete('alice', meta.id);
      expect(await catalog.purgeTombstones(new Date(deletedAt.getTime() - 1), 10)).toEqual({ count: 0, more: false });
      expect(await catalog.purgeTombstones(deletedAt, 2)).toEqual({ count: 2, more: true });
      expect(await catalog.purgeTombstones(deletedAt, 2)).toEqual({ count: 1, more: false });
      for (const meta of metas) expect(await catalog.find('alice', meta.id)).toBeUndefined();
      expect(await catalog.delete('alice', metas[0]!.id)).toBe(false);
      expect((await catalog.find('alice', kept.id))?.meta.state).toBe('COMMITTED');
      expect((await catalog.usage('alice')).principal).toMatchObject({ artifacts: 1, logicalBytes: 100 });
    });

    it('holds a lease for one holder at a time, and hands it over only after it expires', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      expect(await catalog.tryLease('collect', 'a', 1000)).toBe(true);
      expect(await catalog.tryLease('collect', 'b', 1000)).toBe(false);
      expect(await catalog.renewLease('collect', 'b', 1000)).toBe(false);
      expect(await catalog.tryLease('sweep', 'b', 1000)).toBe(true);
      clock.advance(999);
      expect(await catalog.tryLease('collect', 'b', 1000)).toBe(false);
      expect(await catalog.renewLease('collect', 'a', 1000)).toBe(true);
      clock.advance(1000);
      // Holder a stopped renewing (killed): its lease lapses and b takes it; a learns it lost it.
      expect(await catalog.tryLease('collect', 'b', 1000)).toBe(true);
      expect(await catalog.renewLease('collect', 'a', 1000)).toBe(false);
      await catalog.releaseLease('collect', 'a');
      expect(await catalog.tryLease('collect', 'c', 1000)).toBe(false);
      await catalog.releaseLease('collect', 'b');
      expect(await catalog.tryLease('collect', 'c', 1000)).toBe(true);
    });

    it('stores a shared secret once and gives every caller that same value', async () => {
      const catalog = await fresh(new Clock());
      let calls = 0;
      const make = (value: string) => () => {
        calls++;
        return value;
      };
      expect(await catalog.sharedSecret('cursor-key', make('first'))).toBe('first');
      expect(await catalog.sharedSecret('cursor-key', make('second'))).toBe('first');
      expect(calls).toBe(1);
      const racing = await Promise.all(['x', 'y', 'z'].map((v) => catalog.sharedSecret('admin-token', make(v))));
      expect(new Set(racing).size).toBe(1);
      expect(await catalog.sharedSecret('other', make('o'))).toBe('o');
      await expect(catalog.ping()).resolves.toBeUndefined();
    });

    it('admits queries up to the cap of running ones per principal, racing admissions included, and forgets silent ones', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const query = (id: string, principal = 'alice') => ({ id, principal, replica: 'r1', state: 'RUNNING' as const, data: { queryId: id }, error: null });
      const alive = () => new Date(clock.current.getTime() - 60_000);
      const racing = await Promise.all(['q1', 'q2', 'q3', 'q4', 'q5'].map((id) => catalog.admitQuery(query(id), 2, alive())));
      expect(racing.filter((a) => a.admitted)).toHaveLength(2);
      expect(racing.filter((a) => !a.admitted)).toEqual([{ admitted: false, running: 2 }, { admitted: false, running: 2 }, { admitted: false, running: 2 }]);
      const admittedIds = ['q1', 'q2', 'q3', 'q4', 'q5'].filter((_, i) => racing[i]!.admitted);
      expect((await catalog.findQuery('alice', admittedIds[0]!))?.state).toBe('RUNNING');
      expect(await catalog.admitQuery(query('b1', 'bob'), 2, alive())).toEqual({ admitted: true });
      expect(await catalog.admitQuery(query(HOSTILE, HOSTILE), 1, alive())).toEqual({ admitted: true });
      await catalog.putQuery({ ...query(admittedIds[0]!), state: 'SUCCEEDED' });
      expect(await catalog.admitQuery(query('q6'), 2, alive())).toEqual({ admitted: true });
      expect(await catalog.admitQuery(query('q7'), 2, alive())).toEqual({ admitted: false, running: 2 });
      // The replica running them stopped writing: past the watermark they hold no slot.
      clock.advance(60_001);
      expect(await catalog.admitQuery(query('q7'), 2, alive())).toEqual({ admitted: true });
    });

    it('adds request counts from racing replicas exactly and answers the totals of the watched principals', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const w0 = T0;
      const w1 = new Date(T0.getTime() + 60_000);
      const add = (principal: string, windowStart: Date, requests: number, scope = 'api') => ({ scope, principal, windowStart, requests });
      await Promise.all(Array.from({ length: 6 }, () => catalog.countRequests([add('alice', w0, 2), add('bob', w0, 1)], [], w0)));
      const totals = await catalog.countRequests([add('alice', w1, 3), add('alice', w1, 1, 'mcp'), add(HOSTILE, w1, 1)], ['alice', HOSTILE], w0);
      const sorted = [...totals].sort((a, b) => a.windowStart.getTime() - b.windowStart.getTime() || a.scope.localeCompare(b.scope) || a.principal.localeCompare(b.principal));
      expect(sorted).toEqual([add('alice', w0, 12), add(HOSTILE, w1, 1), add('alice', w1, 3), add('alice', w1, 1, 'mcp')].sort((a, b) => a.windowStart.getTime() - b.windowStart.getTime() || a.scope.localeCompare(b.scope) || a.principal.localeCompare(b.principal)));
      expect(await catalog.countRequests([], ['bob'], w1)).toEqual([]);
      expect(await catalog.purgeRequestCounts(w1, 1)).toEqual({ count: 1, more: true });
      expect(await catalog.purgeRequestCounts(w1, 10)).toEqual({ count: 1, more: false });
      expect(await catalog.countRequests([], ['alice', 'bob'], w0)).toHaveLength(2);
    });

    it('keeps a saved visualization for its principal only', async () => {
      const catalog = await fresh(new Clock());
      const saved = { id: 'viz_1', principal: 'alice', title: 'Revenue', intent: { type: 'metric', query: { explore: 'sales' } }, chart: { type: 'bar', y: ['sales.revenue'] }, createdAt: T0.toISOString() };
      await catalog.saveVisualization(saved);
      await catalog.saveVisualization({ ...saved, id: 'viz_2', title: null });
      expect(await catalog.findVisualization('alice', 'viz_1')).toEqual(saved);
      expect((await catalog.findVisualization('alice', 'viz_2'))?.title).toBeNull();
      for (const other of ['bob', HOSTILE]) expect(await catalog.findVisualization(other, 'viz_1')).toBeUndefined();
      expect(await catalog.findVisualization('alice', 'viz_missing')).toBeUndefined();
    });
    it('lists a principal\u2019s visualizations newest first, page by page, and deletes only its own', async () => {
      const catalog = await fresh(new Clock());
      const at = (s: number) => new Date(T0.getTime() + s * 1000).toISOString();
      const saved = (id: string, createdAt: string, principal = 'alice') => ({ id, principal, title: id === 'viz_b' ? null : `T ${id}`, intent: {}, chart: {}, createdAt });
      // viz_c and viz_d share a time: the id breaks the tie, and paging still never repeats or skips.
      for (const v of [saved('viz_a', at(1)), saved('viz_b', at(2)), saved('viz_c', at(3)), saved('viz_d', at(3)), saved('viz_e', at(4)), saved('viz_x', at(5), 'bob')]) await catalog.saveVisualization(v);
      const seen: string[] = [];
      let page = await catalog.listVisualizations('alice', { limit: 2 });
      expect(page.visualizations[0]).toEqual({ id: 'viz_e', title: 'T viz_e', createdAt: at(4) });
      seen.push(...page.visualizations.map((v) => v.id));
      while (page.next !== null) {
        page = await catalog.listVisualizations('alice', { limit: 2, after: page.next });
        seen.push(...page.visualizations.map((v) => v.id));
      }
      expect(seen).toEqual(['viz_e', 'viz_d', 'viz_c', 'viz_b', 'viz_a']);
      for (const other of ['carol', HOSTILE]) expect((await catalog.listVisualizations(other, { limit: 10 })).visualizations).toEqual([]);
      // Another principal's visualization cannot be deleted, and stays.
      expect(await catalog.deleteVisualization('alice', 'viz_x')).toBe(false);
      expect(await catalog.deleteVisualization(HOSTILE, 'viz_a')).toBe(false);
      expect((await catalog.findVisualization('bob', 'viz_x'))?.id).toBe('viz_x');
      expect(await catalog.deleteVisualization('alice', 'viz_c')).toBe(true);
      expect(await catalog.deleteVisualization('alice', 'viz_c')).toBe(false);
      expect(await catalog.findVisualization('alice', 'viz_c')).toBeUndefined();
      expect((await catalog.listVisualizations('alice', { limit: 10 })).visualizations.map((v) => v.id)).toEqual(['viz_e', 'viz_d', 'viz_b', 'viz_a']);
    });

    it('keeps each principal\u2019s query history newest first, paged and filtered; an ended entry is final', async () => {
      const catalog = await fresh(new Clock());
      const at = (s: number) => new Date(T0.getTime() + s * 1000).toISOString();
      const entry = (queryId: string, submittedAt: string, more: Partial<HistoryEntry> = {}): HistoryEntry => ({
        queryId, principal: 'alice', datasource: 'default', sql: `SELECT '${queryId}'`, state: 'RUNNING', submittedAt, finishedAt: null, rows: null, artifactId: null, errorCode: null, ...more,
      });
      await catalog.putHistory(entry('q1', at(1)));
      await catalog.putHistory(entry('q2', at(2), { datasource: 'mysql' }));
      await catalog.putHistory(entry('q3', at(3)));
      await catalog.putHistory(entry('q4', at(3)));
      await catalog.putHistory(entry('q5', at(4)));
      await catalog.putHistory(entry('b1', at(5), { principal: 'bob' }));
      const ended = entry('q1', at(1), { state: 'SUCCEEDED', finishedAt: at(2), rows: 12438, artifactId: 'art_1' });
      await catalog.putHistory(ended);
      // A late RUNNING write never undoes the end.
      await catalog.putHistory(entry('q1', at(1)));
      await catalog.putHistory(entry('q3', at(3), { state: 'FAILED', finishedAt: at(4), rows: 0, errorCode: 'SQL_ERROR' }));
      // Another principal cannot overwrite an entry by its id.
      await catalog.putHistory(entry('q5', at(4), { principal: 'bob', state: 'SUCCEEDED', sql: 'stolen' }));
      const seen: HistoryEntry[] = [];
      let page = await catalog.listHistory('alice', { limit: 2 });
      seen.push(...page.entries);
      while (page.next !== null) {
        page = await catalog.listHistory('alice', { limit: 2, after: page.next });
        seen.push(...page.entries);
      }
      expect(seen.map((e) => e.queryId)).toEqual(['q5', 'q4', 'q3', 'q2', 'q1']);
      expect(seen.find((e) => e.queryId === 'q1')).toEqual(ended);
      expect(seen.find((e) => e.queryId === 'q5')).toEqual(entry('q5', at(4)));
      expect(seen.find((e) => e.queryId === 'q3')).toMatchObject({ state: 'FAILED', errorCode: 'SQL_ERROR', rows: 0 });
      expect((await catalog.listHistory('alice', { limit: 10, state: 'RUNNING' })).entries.map((e) => e.queryId)).toEqual(['q5', 'q4', 'q2']);
      expect((await catalog.listHistory('alice', { limit: 10, datasource: 'mysql' })).entries.map((e) => e.queryId)).toEqual(['q2']);
      expect((await catalog.listHistory('alice', { limit: 10, state: 'SUCCEEDED', datasource: 'mysql' })).entries).toEqual([]);
      expect((await catalog.listHistory('bob', { limit: 10 })).entries.map((e) => e.queryId)).toEqual(['b1']);
      expect((await catalog.listHistory(HOSTILE, { limit: 10 })).entries).toEqual([]);
    });

    it('purges query history submitted before the retention in bounded rounds', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const entry = (queryId: string, submittedAt: Date): HistoryEntry => ({
        queryId, principal: 'alice', datasource: 'default', sql: 'SELECT 1', state: 'SUCCEEDED', submittedAt: submittedAt.toISOString(), finishedAt: submittedAt.toISOString(), rows: 1, artifactId: null, errorCode: null,
      });
      for (const id of ['old1', 'old2', 'old3']) await catalog.putHistory(entry(id, clock.current));
      const cutoff = clock.advance(1000);
      await catalog.putHistory(entry('new1', clock.current));
      expect(await catalog.purgeHistory(cutoff, 2)).toEqual({ count: 2, more: true });
      expect(await catalog.purgeHistory(cutoff, 2)).toEqual({ count: 1, more: false });
      expect((await catalog.listHistory('alice', { limit: 10 })).entries.map((e) => e.queryId)).toEqual(['new1']);
    });

    it('ends query history left RUNNING since before a time as FAILED, in bounded rounds, and leaves ended and younger entries alone', async () => {
      const clock = new Clock();
      const catalog = await fresh(clock);
      const entry = (queryId: string, state: HistoryEntry['state'], principal = 'alice'): HistoryEntry => ({
        queryId, principal, datasource: 'default', sql: 'SELECT 1', state, submittedAt: clock.current.toISOString(), finishedAt: state === 'RUNNING' ? null : clock.current.toISOString(), rows: state === 'RUNNING' ? null : 1, artifactId: null, errorCode: null,
      });
      for (const e of [entry('lost1', 'RUNNING'), entry('lost2', 'RUNNING', 'bob'), entry('lost3', 'RUNNING'), entry('done', 'SUCCEEDED')]) await catalog.putHistory(e);
      const cutoff = clock.advance(1000);
      await catalog.putHistory(entry('young', 'RUNNING'));
      const now = clock.advance(1000);
      expect(await catalog.abandonHistory(cutoff, now, 2)).toEqual({ count: 2, more: true });
      expect(await catalog.abandonHistory(cutoff, now, 2)).toEqual({ count: 1, more: false });
      const alice = (await catalog.listHistory('alice', { limit: 10 })).entries;
      expect(alice.find((e) => e.queryId === 'lost1')).toMatchObject({ state: 'FAILED', errorCode: 'INTERNAL', finishedAt: now.toISOString(), rows: null });
      expect(alice.find((e) => e.queryId === 'done')).toMatchObject({ state: 'SUCCEEDED', finishedAt: T0.toISOString(), errorCode: null });
      expect(alice.find((e) => e.queryId === 'young')?.state).toBe('RUNNING');
      expect((await catalog.listHistory('bob', { limit: 10 })).entries[0]).toMatchObject({ queryId: 'lost2', state: 'FAILED' });
      // Its replica's late end cannot turn an abandoned entry back.
      await catalog.putHistory({ ...entry('lost1', 'SUCCEEDED'), submittedAt: T0.toISOString() });
      expect((await catalog.listHistory('alice', { limit: 10, state: 'FAILED' })).entries.map((e) => e.queryId).sort()).toEqual(['lost1', 'lost3']);
    });

    it('keeps the audit trail newest first, page by page, filtered, written once per id, and purged in bounded rounds', async () => {
      const catalog = await fresh(new Clock());
      const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000).toISOString();
      const entry = (id: string, minutes: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
        id, at: at(minutes), principal: 'alice', action: 'read', route: '/api/artifacts/:id/read', datasource: null, sql: null, artifactId: 'art_1',
        outcome: 'ok', errorCode: null, rows: 10, bytes: null, durationMs: 3, requestId: `req-${id}`, ...over,
      });
      const query = entry('e3', 2, { action: 'query', route: '/api/queries', datasource: 'default', sql: "SELECT 'x'", artifactId: null, rows: 9_007_199_254, bytes: 2 ** 40, durationMs: 1234 });
      const refused = entry('e4', 3, { principal: null, action: 'sign_in', route: '/api/me', outcome: 'refused', errorCode: 'UNAUTHORIZED', artifactId: null, rows: null, durationMs: null });
      // Two entries of one instant: the id orders them.
      const batch = [entry('e1', 0), entry('e2a', 1), entry('e2b', 1, { principal: HOSTILE }), query, refused];
      await catalog.appendAudit(batch);
      // A batch sent again (its first answer lost) writes nothing twice.
      await catalog.appendAudit([query, entry('e5', 4, { action: 'delete' })]);
      const all = await catalog.listAudit({ limit: 100 });
      expect(all.map((e) => e.id)).toEqual(['e5', 'e4', 'e3', 'e2b', 'e2a', 'e1']);
      expect(all[2]).toEqual(query);
      expect(all[1]).toEqual(refused);
      const seen: string[] = [];
      let after: AuditPosition | undefined;
      for (;;) {
        const page = await catalog.listAudit({ limit: 2, after });
        seen.push(...page.map((e) => e.id));
        if (page.length < 2) break;
        after = { at: page[1]!.at, id: page[1]!.id };
      }
      expect(seen).toEqual(all.map((e) => e.id));
      expect((await catalog.listAudit({ limit: 100, principal: 'alice', action: 'read' })).map((e) => e.id)).toEqual(['e2a', 'e1']);
      expect((await catalog.listAudit({ limit: 100, principal: HOSTILE })).map((e) => e.id)).toEqual(['e2b']);
      expect((await catalog.listAudit({ limit: 100, since: new Date(at(2)) })).map((e) => e.id)).toEqual(['e5', 'e4', 'e3']);
      expect(await catalog.listAudit({ limit: 100, principal: 'nobody' })).toEqual([]);
      // A big batch goes in several statements, all of it in one transaction.
      await catalog.appendAudit(Array.from({ length: 450 }, (_, i) => entry(`b${String(i).padStart(3, '0')}`, -10)));
      expect(await catalog.listAudit({ limit: 500, since: new Date(at(-10)) })).toHaveLength(456);
      expect(await catalog.purgeAudit(new Date(at(1)), 400)).toEqual({ count: 400, more: true });
      expect(await catalog.purgeAudit(new Date(at(1)), 400)).toEqual({ count: 51, more: false });
      expect((await catalog.listAudit({ limit: 100 })).map((e) => e.id)).toEqual(['e5', 'e4', 'e3', 'e2b', 'e2a']);
    });
  });
}
