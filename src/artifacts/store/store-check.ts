/**
 * The store check: the catalog walked against the bytes, in bounded rounds.
 * First the blobs in hash order: each part a blob names must be stored
 * (else `missing`), of its size and hashing to its SHA-256 (else `corrupt`,
 * read straight from the backend, never through a cache that could hide the
 * damage), and files an upload holds beside its parts are `orphaned`. Then
 * the stored uploads in key order: one no blob references, older than the
 * collector's grace period (a younger one may be a commit in flight), is
 * `orphaned`. A round covers at most `limit` blobs or uploads and answers a
 * cursor to continue from; null once the walk is over. Nothing is changed:
 * the check only reports (collection removes orphans on its own schedule).
 */
import { createHash } from 'node:crypto';
import { SluiceError } from '../../errors.ts';
import type { BlobRecord } from '../../catalog/catalog.ts';
import { GRACE_MS } from './store-collect.ts';
import type { StoreContext } from './store-context.ts';

export interface PartFinding {
  /** The blob (SHA-256 over its parts' hashes) and the upload location holding it. */
  blob: string;
  location: string;
  name: string;
  sha256: string;
}

export interface OrphanFinding {
  location: string;
  /** A stray file inside a blob's upload; absent when the whole upload is referenced by no blob. */
  name?: string;
}

export interface StoreCheckRound {
  checked: { blobs: number; parts: number; locations: number };
  missing: PartFinding[];
  corrupt: PartFinding[];
  orphaned: OrphanFinding[];
  nextCursor: string | null;
}

type Position = { phase: 'blobs' | 'locations'; after: string | null };

const LOCATION = /^[0-9a-f]{2}\/[0-9a-f]{64}(?:-[0-9a-f]{32})?$/;

function encode(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function decode(cursor: string | undefined): Position {
  if (cursor === undefined) return { phase: 'blobs', after: null };
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Position;
    const sane = (p.phase === 'blobs' && (p.after === null || /^[0-9a-f]{64}$/.test(p.after))) || (p.phase === 'locations' && (p.after === null || LOCATION.test(p.after)));
    if (sane) return { phase: p.phase, after: p.after };
  } catch {
    // Falls through to the one answer for every bad cursor.
  }
  throw new SluiceError('INVALID_CURSOR', 'This store-check cursor was not handed out by a store check; start again without one.');
}

async function hashOf(ctx: StoreContext, blob: BlobRecord, part: BlobRecord['parts'][number]): Promise<string | 'missing'> {
  let source: AsyncIterable<Uint8Array>;
  try {
    source = await ctx.bytes.openPart({ location: blob.location, name: part.name, sha256: part.sha256, bytes: part.bytes });
  } catch (error) {
    if (error instanceof SluiceError && error.code === 'NOT_FOUND') return 'missing';
    throw error;
  }
  const hash = createHash('sha256');
  for await (const chunk of source) hash.update(chunk);
  return hash.digest('hex');
}

async function checkBlobs(ctx: StoreContext, after: string | null, limit: number, round: StoreCheckRound): Promise<Position | null> {
  const blobs = await ctx.catalog.blobsAfter(after, limit);
  for (const blob of blobs) {
    round.checked.blobs++;
    const stored = new Map((await ctx.bytes.listParts(blob.location)).map((p) => [p.name, p.bytes]));
    for (const part of blob.parts) {
      round.checked.parts++;
      const finding = { blob: blob.hash, location: blob.location, name: part.name, sha256: part.sha256 };
      const size = stored.get(part.name);
      stored.delete(part.name);
      if (size === undefined) round.missing.push(finding);
      else if (size !== part.bytes) round.corrupt.push(finding);
      else {
        const found = await hashOf(ctx, blob, part);
        if (found === 'missing') round.missing.push(finding);
        else if (found !== part.sha256) round.corrupt.push(finding);
      }
    }
    for (const name of stored.keys()) round.orphaned.push({ location: blob.location, name });
  }
  const last = blobs.at(-1);
  return blobs.length === limit && last !== undefined ? { phase: 'blobs', after: last.hash } : { phase: 'locations', after: null };
}

async function checkLocations(ctx: StoreContext, after: string | null, limit: number, round: StoreCheckRound): Promise<Position | null> {
  const page = await ctx.bytes.listLocations({ after: after ?? undefined, limit });
  const cutoff = ctx.now().getTime() - GRACE_MS;
  for (const { location, modifiedAt } of page.locations) {
    round.checked.locations++;
    if (modifiedAt.getTime() > cutoff) continue;
    if ((await ctx.catalog.blobAtLocation(location)) === undefined) round.orphaned.push({ location });
  }
  return page.next === null ? null : { phase: 'locations', after: page.next };
}

export async function checkStoreRound(ctx: StoreContext, request: { cursor?: string | undefined; limit: number }): Promise<StoreCheckRound> {
  const position = decode(request.cursor);
  const round: StoreCheckRound = { checked: { blobs: 0, parts: 0, locations: 0 }, missing: [], corrupt: [], orphaned: [], nextCursor: null };
  const next = position.phase === 'blobs' ? await checkBlobs(ctx, position.after, request.limit, round) : await checkLocations(ctx, position.after, request.limit, round);
  round.nextCursor = next === null ? null : encode(next);
  return round;
}
