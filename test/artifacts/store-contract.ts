/**
 * The artifact store contract, as one suite that every combination of
 * catalog and bytes runs: a combination is a factory `(dataDir, options) =>
 * Store` (called again with the same directory, it must reopen the same
 * catalog and bytes) and must pass all of it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/artifacts/store/create-store.ts';
import { GRACE_MS } from '../../src/artifacts/store/store-collect.ts';
import type { StoreWorkers } from '../../src/artifacts/store/store-context.ts';
import type { CommitOutcome, Owner } from '../../src/artifacts/types.ts';
import { createFixtures, type Fixtures } from './store-fixtures.ts';
import { pageRows } from '../../src/artifacts/read-page.ts';

export interface DriverOptions {
  workers: StoreWorkers;
  principalQuotaBytes?: number;
  workspaceQuotaBytes?: number;
  now: () => Date;
}

export type DriverFactory = (dataDir: string, options: DriverOptions) => Promise<Store>;

const OWNER: Owner = { principal: 'alice', sessionId: 'default' };
const ROWS_SQL = `select g::int8 as id, (g % 7)::int4 as bucket, 'v' || g as label from generate_series(1, 3000) g`;
const OTHER_SQL = `select g::int8 as id from generate_series(1, 10) g`;

export function testArtifactStore(name: string, factory: DriverFactory): void {
  describe(`artifact store contract: ${name}`, () => {
    let fixtures: Fixtures;
    const dirs: string[] = [];
    const freshDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'sluice-store-'));
      dirs.push(dir);
      return dir;
    };
    /** A clock the test moves: collection spares bytes released within the grace period. */
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const now = () => new Date(clock);
    const later = (ms: number) => (clock += ms);
    const open = (dir: string, quotas: { principalQuotaBytes?: number; workspaceQuotaBytes?: number } = {}) => factory(dir, { workers: fixtures.workers, now, ...quotas });
    const commit = async (store: Store, sql: string, owner: Owner = OWNER, ttl = 3600): Promise<CommitOutcome> => {
      const staged = await fixtures.stage(store, sql);
      return staged.staging.commit(owner, staged, ttl);
    };
    const created = async (store: Store, sql: string, owner: Owner = OWNER, ttl = 3600) => {
      const outcome = await commit(store, sql, owner, ttl);
      if (outcome.decision !== 'CREATED') throw new Error(`not created: ${outcome.message}`);
      return outcome.artifact;
    };
    beforeAll(async () => {
      fixtures = await createFixtures();
    });
    afterAll(async () => {
      await fixtures.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('commits, describes, reads and lists an artifact of its owner only', async () => {
      const store = await open(freshDir());
      const meta = await store.get('alice', (await created(store, ROWS_SQL)).id);
      expect(meta).toMatchObject({ state: 'COMMITTED', rowCount: 3000, coverage: 'COMPLETE', sessionId: 'default' });
      const page = await store.read('alice', meta.id, { limit: 5, offset: 2995 });
      expect(pageRows(page.rowsJson).map((r) => r[0])).toEqual(['2996', '2997', '2998', '2999', '3000']);
      expect(page.more).toBe(false);
      expect((await store.list('alice', undefined, undefined, 10)).artifacts.map((a) => a.id)).toEqual([meta.id]);
      await expect(store.get('bob', meta.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(store.read('bob', meta.id, { limit: 1, offset: 0 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(store.delete('bob', meta.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await store.list('bob', undefined, undefined, 10)).artifacts).toEqual([]);
      await store.close();
    });

    it('stores identical content once, counts logical and physical bytes apart, and a repeated commit once', async () => {
      const store = await open(freshDir());
      const a = await created(store, ROWS_SQL);
      const b = await created(store, ROWS_SQL, { principal: 'alice', sessionId: 's2' });
      const again = await created(store, ROWS_SQL);
      expect(again.id).toBe(a.id);
      expect(b.id).not.toBe(a.id);
      const usage = await store.usage('alice');
      expect(usage.principal).toMatchObject({ artifacts: 2, logicalBytes: a.sizeBytes * 2 });
      expect(usage.workspace.physicalBytes).toBe(a.sizeBytes);
      await store.close();
    });

    it('pages the listing with an opaque cursor, and refuses a forged one', async () => {
      const store = await open(freshDir());
      const ids = [];
      for (const sql of [ROWS_SQL, OTHER_SQL, `select 1 as one`]) {
        ids.push((await created(store, sql)).id);
        later(1000);
      }
      const first = await store.list('alice', undefined, undefined, 2);
      expect(first.artifacts).toHaveLength(2);
      const second = await store.list('alice', undefined, first.nextCursor!, 2);
      expect(second.nextCursor).toBeNull();
      expect([...first.artifacts, ...second.artifacts].map((a) => a.id).sort()).toEqual([...ids].sort());
      await expect(store.list('alice', undefined, 'not-a-cursor', 2)).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
      await store.close();
    });

    it('deletes idempotently, and collection reclaims the bytes once the grace period has passed', async () => {
      const store = await open(freshDir());
      const a = await created(store, ROWS_SQL);
      await store.delete('alice', a.id);
      await store.delete('alice', a.id);
      await expect(store.get('alice', a.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await store.usage('alice')).principal).toMatchObject({ artifacts: 0, logicalBytes: 0 });
      expect(await store.collect({ maxBlobs: 10, maxBytes: 1e12 })).toMatchObject({ ran: true, blobsRemoved: 0 });
      later(GRACE_MS + 1000);
      expect(await store.collect({ maxBlobs: 10, maxBytes: 1e12 })).toMatchObject({ ran: true, blobsRemoved: 1, bytesReclaimed: a.sizeBytes });
      expect((await store.usage('alice')).workspace.physicalBytes).toBe(0);
      await store.close();
    });

    it('expires artifacts at their TTL: reads say ARTIFACT_EXPIRED and collection releases them', async () => {
      const store = await open(freshDir());
      const a = await created(store, ROWS_SQL, OWNER, 60);
      expect(Date.parse(a.expiresAt) - clock).toBe(60_000);
      later(60_000);
      await expect(store.get('alice', a.id)).rejects.toMatchObject({ code: 'ARTIFACT_EXPIRED' });
      await expect(store.read('alice', a.id, { limit: 1, offset: 0 })).rejects.toMatchObject({ code: 'ARTIFACT_EXPIRED' });
      expect((await store.list('alice', undefined, undefined, 10)).artifacts).toEqual([]);
      expect((await store.collect({ maxBlobs: 10, maxBytes: 1e12 })).expired).toBe(1);
      later(GRACE_MS + 1000);
      expect((await store.collect({ maxBlobs: 10, maxBytes: 1e12 })).blobsRemoved).toBe(1);
      expect((await store.usage('alice')).principal.logicalBytes).toBe(0);
      await store.close();
    });

    it('denies a commit over the principal quota, stores nothing and leaves nothing staged', async () => {
      const store = await open(freshDir(), { principalQuotaBytes: 1000 });
      const staged = await fixtures.stage(store, ROWS_SQL);
      expect(await staged.staging.commit(OWNER, staged, 3600)).toMatchObject({ decision: 'DENIED', reason: 'QUOTA_EXCEEDED' });
      expect(existsSync(staged.staging.scratchDir)).toBe(false);
      expect((await store.usage('alice')).principal.artifacts).toBe(0);
      expect((await store.usage('alice')).workspace.physicalBytes).toBe(0);
      await store.close();
    });

    it('aborting a staging removes it and changes nothing', async () => {
      const store = await open(freshDir());
      const staged = await fixtures.stage(store, ROWS_SQL);
      await staged.staging.abort();
      expect(existsSync(staged.staging.scratchDir)).toBe(false);
      expect((await store.usage('alice')).workspace).toMatchObject({ artifacts: 0, physicalBytes: 0 });
      await store.close();
    });

    it('an abort after a commit removes nothing of what was committed', async () => {
      const store = await open(freshDir());
      const staged = await fixtures.stage(store, OTHER_SQL);
      const outcome = await staged.staging.commit(OWNER, staged, 3600);
      if (outcome.decision !== 'CREATED') throw new Error('not created');
      await staged.staging.abort();
      expect(pageRows((await store.read('alice', outcome.artifact.id, { limit: 2, offset: 0 })).rowsJson)).toEqual([['1'], ['2']]);
      await store.close();
    });

    it('copies a session by reference and retires only its own references', async () => {
      const store = await open(freshDir());
      const a = await created(store, ROWS_SQL);
      await created(store, OTHER_SQL);
      const physical = (await store.usage('alice')).workspace.physicalBytes;
      const { mapping } = await store.copySession('alice', 'default', 'copy', 3600);
      expect(mapping).toHaveLength(2);
      expect((await store.usage('alice')).workspace.physicalBytes).toBe(physical);
      const copied = mapping.find((m) => m.sourceArtifactId === a.id)!.targetArtifactId;
      expect((await store.get('alice', copied)).sessionId).toBe('copy');
      expect((await store.retireSession('alice', 'default')).releasedArtifacts).toBe(2);
      expect(pageRows((await store.read('alice', copied, { limit: 1, offset: 0 })).rowsJson)[0]![0]).toBe('1');
      expect((await store.list('alice', 'default', undefined, 10)).artifacts).toEqual([]);
      later(GRACE_MS + 1000);
      expect((await store.collect({ maxBlobs: 10, maxBytes: 1e12 })).blobsRemoved).toBe(0);
      await expect(store.copySession('alice', 'copy', 'copy', 60)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      await store.close();
    });

    it('exports a session as a bundle another store imports whole, or not at all', async () => {
      const [source, target] = [await open(freshDir()), await open(freshDir())];
      const trip = { principal: 'alice', sessionId: 'trip' };
      const made = [await created(source, ROWS_SQL, trip), await created(source, OTHER_SQL, trip)];
      const chunks: Buffer[] = [];
      for await (const chunk of (await source.exportSession('alice', 'trip')).body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
      const bundle = Buffer.concat(chunks);
      await expect(source.exportSession('bob', 'trip')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      async function* streamed(bytes: Buffer) {
        for (let at = 0; at < bytes.length; at += 65_536) yield bytes.subarray(at, at + 65_536);
      }
      const options = { maxBytes: 1e9, ttlSeconds: 3600 };
      const walk = async (store: Store) => {
        const seen = { blobs: 0, locations: 0, problems: 0 };
        let cursor: string | undefined;
        do {
          const round = await store.checkStore({ cursor, limit: 10 });
          seen.blobs += round.checked.blobs;
          seen.locations += round.checked.locations;
          seen.problems += round.missing.length + round.corrupt.length + round.orphaned.length;
          cursor = round.nextCursor ?? undefined;
        } while (cursor !== undefined);
        return seen;
      };
      const flipped = Buffer.from(bundle);
      flipped[bundle.length - 1536]! ^= 0xff;
      await expect(target.importSession('alice', 'in', streamed(flipped), options)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      await expect(target.importSession('alice', 'in', streamed(bundle), { ...options, maxBytes: 2048 })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
      expect(await walk(target)).toEqual({ blobs: 0, locations: 0, problems: 0 });
      expect((await target.usage('alice')).principal.artifacts).toBe(0);
      const { mapping } = await target.importSession('alice', 'in', streamed(bundle), options);
      // Both were made at the same instant of the test's clock: their order is the ids'.
      expect(mapping.map((m) => m.sourceArtifactId).sort()).toEqual(made.map((m) => m.id).sort());
      for (const { sourceArtifactId, targetArtifactId } of mapping) {
        const [before, after] = await Promise.all([source.read('alice', sourceArtifactId, { limit: 3000, offset: 0 }), target.read('alice', targetArtifactId, { limit: 3000, offset: 0 })]);
        expect(after.rowsJson).toEqual(before.rowsJson);
        expect(after.columns).toEqual(before.columns);
      }
      expect(await walk(target)).toMatchObject({ blobs: 2, locations: 2, problems: 0 });
      await source.close();
      await target.close();
    });

    it('collects in bounded rounds', async () => {
      const store = await open(freshDir());
      for (const sql of [ROWS_SQL, OTHER_SQL]) await store.delete('alice', (await created(store, sql)).id);
      later(GRACE_MS + 1000);
      expect(await store.collect({ maxBlobs: 1, maxBytes: 1e12 })).toMatchObject({ blobsRemoved: 1, more: true });
      expect((await store.collect({ maxBlobs: 1, maxBytes: 1e12 })).blobsRemoved).toBe(1);
      expect((await store.usage('alice')).workspace.physicalBytes).toBe(0);
      await store.close();
    });

    it('survives reopening, and sweeps what an earlier process left staged', async () => {
      const dir = freshDir();
      const first = await open(dir);
      const a = await created(first, ROWS_SQL);
      const abandoned = await fixtures.stage(first, OTHER_SQL);
      await first.close();
      const second = await open(dir);
      expect((await second.get('alice', a.id)).rowCount).toBe(3000);
      expect(existsSync(abandoned.staging.scratchDir)).toBe(true);
      await second.sweepScratch();
      expect(existsSync(abandoned.staging.scratchDir)).toBe(false);
      await second.close();
    });

    it('answers every declared download format, as a stream or a short-lived link', async () => {
      const store = await open(freshDir());
      const a = await created(store, OTHER_SQL);
      for (const format of store.capabilities.formats) {
        const download = await store.download('alice', a.id, format);
        const response = download.kind === 'redirect' ? await fetch(download.url) : new Response(download.body);
        const bytes = Buffer.from(await response.arrayBuffer());
        if (format === 'jsonl') expect(bytes.toString().trim().split('\n')).toEqual(Array.from({ length: 10 }, (_, i) => `["${i + 1}"]`));
        if (format === 'csv') expect(bytes.toString().split('\n').slice(0, 3)).toEqual(['id', '1', '2']);
        if (format === 'parquet') expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
      }
      await expect(store.download('bob', a.id, 'parquet')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await store.close();
    });

    it('reports itself healthy', async () => {
      const store = await open(freshDir());
      expect(await store.health()).toEqual([]);
      await store.close();
    });
  });
}
