/**
 * A session exported as a tar bundle, streamed: `manifest.json` first,
 * then each distinct part once, `parts/<sha256>.parquet`, read from the byte
 * store as the client takes the bytes (a part is leased only while it is
 * being sent, and checked against its SHA-256 on the way out), so neither
 * the session nor a part is ever held whole in memory. A part that fails
 * its hash errors the stream: an importer then sees a truncated tar and
 * imports nothing, never a bundle that looks whole.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { pack as tarPack, type Header, type Pack } from 'tar-stream';
import { SluiceError } from '../../errors.ts';
import type { ArtifactRecord, BlobRecord } from '../../catalog/catalog.ts';
import type { PartRef } from '../bytes/byte-store.ts';
import { PART_READ_BYTES } from '../bytes/content-check.ts';
import { partRefs } from '../store/readable.ts';
import type { StoreContext } from '../store/store-context.ts';
import { BUNDLE_FORMAT, BUNDLE_VERSION, MANIFEST_NAME, partEntryName, type Manifest } from './manifest.ts';

export interface SessionBundle {
  fileName: string;
  artifacts: number;
  body: ReadableStream<Uint8Array>;
}

export function manifestOf(sessionId: string, records: (ArtifactRecord & { blob: BlobRecord })[], now: Date): Manifest {
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    sessionId,
    exportedAt: now.toISOString(),
    artifacts: records.map(({ meta, blob }) => ({
      id: meta.id,
      sql: meta.sql,
      datasource: meta.datasource,
      columns: meta.columns,
      rowCount: meta.rowCount,
      sizeBytes: blob.parts.reduce((sum, p) => sum + p.bytes, 0),
      coverage: meta.coverage,
      boundedBy: meta.boundedBy,
      createdAt: meta.createdAt,
      expiresAt: meta.expiresAt,
      parts: blob.parts.map((p) => ({ name: p.name, sha256: p.sha256, bytes: p.bytes, rows: p.rows })),
    })),
  };
}

export async function exportSession(ctx: StoreContext, principal: string, sessionId: string): Promise<SessionBundle> {
  const records = await ctx.catalog.sessionArtifacts(principal, sessionId);
  if (records.length === 0) throw new SluiceError('NOT_FOUND', `No session "${sessionId}" with readable artifacts exists for this caller.`);
  const manifest = Buffer.from(JSON.stringify(manifestOf(sessionId, records, ctx.now())));
  const parts = new Map<string, PartRef>();
  for (const { blob } of records) for (const ref of partRefs(blob)) if (!parts.has(ref.sha256)) parts.set(ref.sha256, ref);
  const pack = tarPack();
  let cancelled = false;
  void writeEntries(ctx, pack, manifest, [...parts.values()]).catch((error: unknown) => {
    // A client that went, or a HEAD answer, cancels the stream and the pack goes under the writer: no failure to report.
    if (!cancelled) ctx.log.error(`A session export stopped: ${(error as Error).message}`);
    pack.destroy(error as Error);
  });
  const body = webStream(pack, () => (cancelled = true));
  return { fileName: `${sessionId.replace(/[^\w.-]/g, '_')}.sluice.tar`, artifacts: records.length, body };
}

async function writeEntries(ctx: StoreContext, pack: Pack, manifest: Buffer, parts: PartRef[]): Promise<void> {
  await entryDone(pack, { name: MANIFEST_NAME, size: manifest.length, mode: 0o644 }, (entry) => void entry.end(manifest));
  for (const part of parts) {
    const lease = await ctx.bytes.localPath(part);
    try {
      await entryDone(pack, { name: partEntryName(part.sha256), size: part.bytes, mode: 0o644 }, async (entry) => {
        const hash = createHash('sha256');
        for await (const chunk of createReadStream(lease.path, { highWaterMark: PART_READ_BYTES })) {
          hash.update(chunk as Buffer);
          if (!entry.write(chunk)) await once(entry, 'drain');
        }
        if (hash.digest('hex') !== part.sha256) throw new SluiceError('ARTIFACT_CORRUPT', 'A stored part failed its integrity check during an export.');
        entry.end(undefined);
      });
    } finally {
      lease.release();
    }
  }
  pack.finalize();
}

/** Writes one entry and resolves when the pack has taken all of it. */
type Sink = ReturnType<Pack['entry']>;

function entryDone(pack: Pack, header: Partial<Header> & Pick<Header, 'name'>, write: (entry: Sink) => unknown): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const entry = pack.entry(header, (error) => (error ? reject(error) : resolve()));
    Promise.resolve(write(entry)).catch((error: unknown) => {
      entry.destroy(error as Error);
      reject(error as Error);
    });
  });
}

/** The pack as a web stream, pulled as the client reads; cancelling it stops the export. */
function webStream(pack: Pack, onCancel: () => void): ReadableStream<Uint8Array> {
  const chunks = pack[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done === true) controller.close();
          else {
            const chunk = next.value as Uint8Array;
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          }
        } catch (error) {
          controller.error(error);
        }
      },
      cancel() {
        onCancel();
        pack.destroy();
      },
    },
    { highWaterMark: 1 },
  );
}
