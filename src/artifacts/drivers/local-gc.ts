/**
 * The collector: expires artifacts past their TTL and reclaims bytes nobody
 * references, in bounded rounds (by count and by bytes) from indexed
 * candidate lists, so a round costs the same however large the store is.
 * Bytes leave the store with one rename into `trash/` in the same
 * synchronous step that forgets them, so a commit can never revive a blob
 * whose bytes are being removed; the trash is emptied afterwards, and a
 * crash at any point leaves at worst something the next round finishes.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CollectionReport } from '../types.ts';
import { objectDir, type LocalContext } from './local-layout.ts';

export async function collect(ctx: LocalContext, limits: { maxBlobs: number; maxBytes: number }): Promise<CollectionReport> {
  const trash = ctx.trashRoot;
  const expiredRows = ctx.rows.expiredBefore(ctx.now().toISOString(), limits.maxBlobs);
  ctx.db.transaction(() => {
    for (const row of expiredRows) ctx.rows.release(row, 'EXPIRED');
  })();
  let bytes = 0;
  let removed = 0;
  const candidates = ctx.rows.unreferencedBlobs(limits.maxBlobs);
  for (const blob of candidates) {
    if (bytes >= limits.maxBytes) break;
    const target = join(trash, `${blob.hash}-${randomUUID()}`);
    try {
      renameSync(objectDir(ctx, blob.location), target);
    } catch (error) {
      // Already gone (a crash after an earlier rename): only the catalog row is left to drop.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    ctx.checkpoint('collect:after-rename');
    if (ctx.db.transaction(() => ctx.rows.dropBlob(blob.hash, blob.size_bytes))()) {
      removed++;
      bytes += blob.size_bytes;
    }
  }
  await emptyTrash(trash);
  return {
    expired: expiredRows.length,
    blobsRemoved: removed,
    bytesReclaimed: bytes,
    more: expiredRows.length === limits.maxBlobs || candidates.length === limits.maxBlobs || bytes >= limits.maxBytes,
  };
}

async function emptyTrash(trash: string): Promise<void> {
  for (const entry of readdirSync(trash)) await rm(join(trash, entry), { recursive: true, force: true });
}

/**
 * Bytes that reached their place but never their catalog row (a crash
 * between the two). Scans the object directories once, in the background;
 * it is the one job whose time grows with the store, so it never runs
 * before the server is ready.
 */
export async function sweepOrphans(ctx: LocalContext): Promise<number> {
  let removed = 0;
  let seen = 0;
  for (const prefix of safeList(ctx.objectsRoot)) {
    for (const hash of safeList(join(ctx.objectsRoot, prefix))) {
      // Yield often: this scan shares the event loop with requests.
      if (++seen % 64 === 0) await new Promise((r) => setImmediate(r));
      if (ctx.rows.blob(hash) !== undefined) continue;
      const target = join(ctx.trashRoot, `${hash}-${randomUUID()}`);
      try {
        renameSync(join(ctx.objectsRoot, prefix, hash), target);
        removed++;
      } catch {
        // Moved meanwhile by a commit of the same content: it is referenced now.
      }
    }
  }
  await emptyTrash(ctx.trashRoot);
  return removed;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
