/**
 * The artifact store contract, as one suite that every driver runs: a driver
 * is a factory `(dataDir, options) => ArtifactStore` and must pass all of it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactStore } from '../../src/artifacts/types.ts';
import type { StoreWorkers } from '../../src/artifacts/drivers/local-layout.ts';
import { SluiceError } from '../../src/errors.ts';
import { createFixtures, type Fixtures } from './store-fixtures.ts';

export interface DriverOptions {
  workers: StoreWorkers;
  principalQuotaBytes?: number;
  workspaceQuotaBytes?: number;
  now?: () => Date;
}

export type DriverFactory = (dataDir: string, options: DriverOptions) => ArtifactStore;

const OWNER = { principal: 'alice', sessionId: 'default' };
const ROWS_SQL = `select g::int8 as id, (g % 7)::int4 as bucket, 'v' || g as label from generate_series(1, 3000) g`;
const OTHER_SQL = `select g::int8 as id from generate_series(1, 10) g`;

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as SluiceError).code;
  }
  return undefined;
}

export function testArtifactStore(name: string, factory: DriverFactory): void {
  describe(`artifact store contract: ${name}`, () => {
    let fixtures: Fixtures;
    const dirs: string[] = [];
    const freshDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'sluice-store-'));
      dirs.push(dir);
      return dir;
    };
    beforeAll(async () => {
      fixtures = await createFixtures();
    });
    afterAll(async () => {
      await fixtures.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('commits, describes, reads and lists an artifact of its owner only', async () => {
      const store = factory(freshDir(), { workers: fixtures.workers });
      const outcome = store.commit(OWNER, await fixtures.stage(store, ROWS_SQL), 3600);
      if (outcome.decision !== 'CREATED') throw new Error('not created');
      const meta = store.get('alice', outcome.artifact.id);
      expect(meta).toMatchObject({ state: 'COMMITTED', rowCount: 3000, coverage: 'COMPLETE', sessionId: 'default' });
      const page = await store.read('alice', meta.id, { limit: 5, offset: 2995 });
      expect(page.rows.map((r) => r[0])).toEqual(['2996', '2997', '2998', '2999', '3000']);
      expect(page.more).toBe(false);
      expect(store.list('alice', undefined, undefined, 10).artifacts.map((a) => a.id)).toEqual([meta.id]);
      expect(code(() => store.get('bob', meta.id))).toBe('NOT_FOUND');
      await expect(store.read('bob', meta.id, { limit: 1, offset: 0 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(store.list('bob', undefined, undefined, 10).artifacts).toEqual([]);
      store.close();
    });

    it('stores identical content once and counts logical and physical bytes apart', async () => {
      const store = factory(freshDir(), { workers: fixtures.workers });
      const a = store.commit(OWNER, await fixtures.stage(store, ROWS_SQL), 3600);
      const b = store.commit({ principal: 'alice', sessionId: 's2' }, await fixtures.stage(store, ROWS_SQL), 3600);
      if (a.decision !== 'CREATED' || b.decision !== 'CREATED') throw new Error('not created');
      const usage = store.usage('alice');
      expect(usage.principal.logicalBytes).toBe(a.artifact.sizeBytes * 2);
      expect(usage.workspace.physicalBytes).toBe(a.artifact.sizeBytes);
      store.close();
    });

    it('deletes idempotently, and collection then reclaims the bytes', async () => {
      const dir = freshDir();
      const store = factory(dir, { workers: fixtures.workers });
      const a = store.commit(OWNER, await fixtures.stage(store, ROWS_SQL), 3600);
      if (a.decision !== 'CREATED') throw new Error('not created');
      store.delete('alice', a.artifact.id);
      store.delete('alice', a.artifact.id);
      expect(code(() => store.get('alice', a.artifact.id))).toBe('NOT_FOUND');
      expect(store.usage('alice').principal).toMatchObject({ artifacts: 0, logicalBytes: 0 });
      const report = await store.collect({ maxBlobs: 10, maxBytes: 1e12 });
      expect(report).toMatchObject({ blobsRemoved: 1, bytesReclaimed: a.artifact.sizeBytes });
      expect(store.usage('alice').workspace.physicalBytes).toBe(0);
      store.close();
    });

    it('expires artifacts at their TTL: reads say ARTIFACT_EXPIRED and collection releases them', async () => {
      let now = new Date('2026-01-01T00:00:00Z');
      const store = factory(freshDir(), { workers: fixtures.workers, now: () => now });
      const a = store.commit(OWNER, await fixtures.stage(store, ROWS_SQL), 60);
      if (a.decision !== 'CREATED') throw new Error('not created');
      expect(a.artifact.expiresAt).toBe('2026-01-01T00:01:00.000Z');
      now = new Date('2026-01-01T00:01:00Z');
      expect(code(() => store.get('alice', a.artifact.id))).toBe('ARTIFACT_EXPIRED');
      expect(store.list('alice', undefined, undefined, 10).artifacts).toEqual([]);
      const report = await store.collect({ maxBlobs: 10, maxBytes: 1e12 });
      expect(report.expired).toBe(1);
      expect(report.blobsRemoved).toBe(1);
      expect(store.usage('alice').principal.logicalBytes).toBe(0);
      store.close();
    });

    it('denies a commit over the principal quota and leaves nothing staged', async () => {
      const store = factory(freshDir(), { workers: fixtures.workers, principalQuotaBytes: 1000 });
      const staged = await fixtures.stage(store, ROWS_SQL);
      const outcome = store.commit(OWNER, staged, 3600);
      expect(outcome).toMatchObject({ decision: 'DENIED', reason: 'QUOTA_EXCEEDED' });
      expect(existsSync(staged.stagingDir)).toBe(false);
      expect(store.usage('alice').principal.artifacts).toBe(0);
      store.close();
    });

    it('copies a session by reference and retires only its own references', async () => {
      const store = factory(freshDir(), { workers: fixtures.workers });
      const a = store.commit(OWNER, await fixtures.stage(store, ROWS_SQL), 3600);
      store.commit(OWNER, await fixtures.stage(store, OTHER_SQL), 3600);
      if (a.decision !== 'CREATED') throw new Error('not created');
      const physical = store.usage('alice').workspace.physicalBytes;
      const { mapping } = store.copySession('alice', 'default', 'copy', 3600);
      expect(mapping).toHaveLength(2);
      expect(store.usage('alice').workspace.physicalBytes).toBe(physical);
      const copied = mapping.find((m) => m.sourceArtifactId === a.artifact.id)!.targetArtifactId;
      expect(store.get('alice', copied).sessionId).toBe('copy');
      const released = store.retireSession('alice', 'default');
      expect(released.releasedArtifacts).toBe(2);
      expect((await store.read('alice', copied, { limit: 1, offset: 0 })).rows[0]![0]).toBe('1');
      expect(store.list('alice', 'default', undefined, 10).artifacts).toEqual([]);
      expect((await store.collect({ maxBlobs: 10, maxBytes: 1e12 })).blobsRemoved).toBe(0);
      expect(code(() => store.copySession('alice', 'copy', 'copy', 60))).toBe('VALIDATION_ERROR');
      store.close();
    });

    it('collects in bounded rounds', async () => {
      const store = factory(freshDir(), { workers: fixtures.workers });
      for (const sql of [ROWS_SQL, OTHER_SQL]) {
        const outcome = store.commit(OWNER, await fixtures.stage(store, sql), 3600);
        if (outcome.decision === 'CREATED') store.delete('alice', outcome.artifact.id);
      }
      const first = await store.collect({ maxBlobs: 1, maxBytes: 1e12 });
      expect(first).toMatchObject({ blobsRemoved: 1, more: true });
      const second = await store.collect({ maxBlobs: 1, maxBytes: 1e12 });
      expect(second.blobsRemoved).toBe(1);
      expect(store.usage('alice').workspace.physicalBytes).toBe(0);
      store.close();
    });

    it('survives reopening, and sweeps what an earlier process left staged', async () => {
      const dir = freshDir();
      const first = factory(dir, { workers: fixtures.workers });
      const a = first.commit(OWNER, await fixtures.stage(first, ROWS_SQL), 3600);
      const abandoned = await fixtures.stage(first, OTHER_SQL);
      first.close();
      const second = factory(dir, { workers: fixtures.workers });
      if (a.decision !== 'CREATED') throw new Error('not created');
      expect(second.get('alice', a.artifact.id).rowCount).toBe(3000);
      expect(existsSync(abandoned.stagingDir)).toBe(true);
      await second.sweepStaging();
      expect(existsSync(abandoned.stagingDir)).toBe(false);
      second.close();
    });

    it('streams downloads in every declared format', async () => {
      const store = factory(freshDir(), { workers: fixtures.workers });
      const a = store.commit(OWNER, await fixtures.stage(store, OTHER_SQL), 3600);
      if (a.decision !== 'CREATED') throw new Error('not created');
      for (const format of store.capabilities.formats) {
        const file = await store.download('alice', a.artifact.id, format);
        const bytes = Buffer.from(await new Response(file.body).arrayBuffer());
        if (format === 'jsonl') expect(bytes.toString().trim().split('\n')).toEqual(Array.from({ length: 10 }, (_, i) => `["${i + 1}"]`));
        if (format === 'csv') expect(bytes.toString().split('\n').slice(0, 3)).toEqual(['id', '1', '2']);
        if (format === 'parquet') expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
      }
      store.close();
    });
  });
}
