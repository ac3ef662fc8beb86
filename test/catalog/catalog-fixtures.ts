/**
 * Commit requests for catalog tests: a blob is described, never written
 * (the catalog never looks at bytes), and a hand-moved clock stands in for
 * time, so nothing here waits or depends on how fast a machine is.
 */
import { createHash } from 'node:crypto';
import type { Catalog, CatalogCommitOutcome, CommitRequest } from '../../src/catalog/catalog.ts';
import type { ArtifactMeta } from '../../src/artifacts/types.ts';

export const T0 = new Date('2026-03-01T12:00:00.000Z');

export class Clock {
  current = T0;
  readonly now = (): Date => this.current;
  advance(ms: number): Date {
    this.current = new Date(this.current.getTime() + ms);
    return this.current;
  }
}

export function hashOf(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

export interface RequestShape {
  principal?: string;
  sessionId?: string;
  content?: string;
  size?: number;
  sql?: string;
  datasource?: string;
  location?: string;
  ttlSeconds?: number;
}

export function commitRequest(shape: RequestShape = {}): CommitRequest {
  const content = shape.content ?? 'content-a';
  const hash = hashOf(content);
  const size = shape.size ?? 100;
  return {
    owner: { principal: shape.principal ?? 'alice', sessionId: shape.sessionId ?? 'default' },
    blob: {
      hash,
      location: shape.location ?? `objects/${hash}/upload-1`,
      parts: [{ name: 'part-0.parquet', rows: 10, bytes: size, sha256: hash }],
      sizeBytes: size,
    },
    sql: shape.sql ?? `select '${content}'`,
    datasource: shape.datasource ?? 'default',
    columns: [{ name: 'id', type: 'int8', storageName: 'id', storage: 'int8', duckType: 'BIGINT' }],
    rowCount: 10,
    coverage: 'COMPLETE',
    boundedBy: null,
    ttlSeconds: shape.ttlSeconds ?? 3600,
  };
}

export function created(outcome: CatalogCommitOutcome): Extract<CatalogCommitOutcome, { decision: 'CREATED' }> {
  if (outcome.decision !== 'CREATED') throw new Error(`expected CREATED, got DENIED: ${outcome.message}`);
  return outcome;
}

export async function commitOk(catalog: Catalog, shape: RequestShape = {}): Promise<ArtifactMeta> {
  return created(await catalog.commit(commitRequest(shape))).artifact;
}

export async function errorOf(promise: Promise<unknown>): Promise<{ code?: string; message: string; status?: number; details?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a rejection');
}
