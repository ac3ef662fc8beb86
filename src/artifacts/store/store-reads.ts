/**
 * Reads of the store: pages, aggregates and downloads, each re-authorized
 * against the catalog first. The parts are leased from the byte store as
 * local files (downloaded into the cache and checked against their hash
 * first when they live in a bucket) and released when DuckDB is done with
 * them; DuckDB runs on the read workers. A one-part Parquet download from a
 * bucket is a redirect to a short-lived signed link; everything else is
 * streamed with back-pressure.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SluiceError } from '../../errors.ts';
import { quoteIdent, quoteLiteral } from '../../columns/column-plan.ts';
import { rowJsonExpression } from '../../columns/value-encoding.ts';
import { buildAggregateStatement } from '../aggregate-sql.ts';
import type { PartLease, PartRef } from '../bytes/byte-store.ts';
import type { ArtifactRecord, BlobRecord } from '../catalog/catalog.ts';
import type { BoundValue } from '../filter-values.ts';
import { fileStream } from '../file-stream.ts';
import { buildReadStatement, isPlainRead, plainWindow, type PartFile } from '../read-sql.ts';
import { PageCache } from './page-cache.ts';
import type { AggregateRequest, AggregateResult, ArtifactMeta, Download, DownloadFormat, ReadPage, ReadRequest } from '../types.ts';
import type { StoreContext } from './store-context.ts';

/** Download links are used at once by the client that asked: a few minutes is plenty. */
export const DOWNLOAD_LINK_SECONDS = 300;

export async function readable(ctx: StoreContext, principal: string, id: string): Promise<ArtifactRecord & { blob: BlobRecord }> {
  const record = await ctx.catalog.find(principal, id);
  if (record === undefined || record.meta.state === 'DELETED') throw new SluiceError('NOT_FOUND', `No artifact "${id}" exists for this caller.`);
  if (record.meta.state === 'EXPIRED') {
    throw new SluiceError('ARTIFACT_EXPIRED', `Artifact "${id}" expired at ${record.meta.expiresAt}; run the query again to recreate it.`, { expiresAt: record.meta.expiresAt });
  }
  if (record.blob === null) throw new SluiceError('ARTIFACT_CORRUPT', `The bytes of artifact "${id}" are missing from the store.`);
  return record as ArtifactRecord & { blob: BlobRecord };
}

function partRefs(blob: BlobRecord): PartRef[] {
  return blob.parts.map((p) => ({ location: blob.location, name: p.name, sha256: p.sha256, bytes: p.bytes }));
}

/** Leases parts of a blob (all of them, or `count` from `first`), in order; the caller releases them when DuckDB is done. */
async function leaseParts(ctx: StoreContext, blob: BlobRecord, first = 0, count = blob.parts.length): Promise<{ files: (PartFile & { sha256: string })[]; release: () => void }> {
  const leases: PartLease[] = [];
  const release = () => leases.forEach((l) => l.release());
  const wanted = blob.parts.slice(first, first + count);
  try {
    for (const ref of partRefs(blob).slice(first, first + count)) leases.push(await ctx.bytes.localPath(ref));
  } catch (error) {
    release();
    throw error;
  }
  const files = wanted.map((p, i) => ({ path: leases[i]!.path, rows: p.rows, sha256: p.sha256 }));
  return { files, release };
}

type Statement = { sql: string; params: BoundValue[]; columns: { name: string; type: string }[] };

/** The cache of each store's recent answers; a store's context lives as long as the store. */
const caches = new WeakMap<StoreContext, PageCache<ReadPage>>();

function cacheOf(ctx: StoreContext): PageCache<ReadPage> {
  let cache = caches.get(ctx);
  if (cache === undefined) caches.set(ctx, (cache = new PageCache<ReadPage>()));
  return cache;
}

/**
 * Runs a statement built over some of the artifact's parts (leased for it), one row past
 * `limit` telling whether more exist. The artifact is authorized first, every time; only
 * then may the answer come from the cache, keyed by the artifact (its bytes never change)
 * and the whole request.
 */
async function query(
  ctx: StoreContext,
  principal: string,
  id: string,
  request: { limit: number },
  kind: 'read' | 'aggregate',
  plan: (meta: ArtifactMeta, blob: BlobRecord) => { first: number; count: number; build: (files: PartFile[]) => Statement },
): Promise<ReadPage> {
  const { meta, blob } = await readable(ctx, principal, id);
  const key = `${kind}\u0000${meta.id}\u0000${blob.hash}\u0000${JSON.stringify(request)}`;
  return cacheOf(ctx).get(key, async () => {
    const { first, count, build } = plan(meta, blob);
    const { files, release } = await leaseParts(ctx, blob, first, count);
    try {
      const statement = build(files);
      const result = await ctx.workers.read(statement.sql, statement.params);
      const more = result.length > request.limit;
      const rows = more ? result.slice(0, request.limit) : result;
      return { value: { columns: statement.columns.map((c) => ({ name: c.name, type: c.type })), rows, more }, bytes: approximateBytes(rows) };
    } finally {
      release();
    }
  });
}

/** About the memory a page's rows hold, for the cache's bound (strings at two bytes a character). */
function approximateBytes(rows: unknown[][]): number {
  let bytes = 0;
  for (const row of rows) for (const value of row) bytes += typeof value === 'string' ? 2 * value.length + 16 : Array.isArray(value) ? 16 * value.length + 64 : 16;
  return bytes + 32 * rows.length;
}

/** A plain page leases and reads only the parts its rows are in; a filtered or sorted one, all of them. */
export function readPage(ctx: StoreContext, principal: string, id: string, request: ReadRequest): Promise<ReadPage> {
  return query(ctx, principal, id, request, 'read', (meta, blob) => {
    if (!isPlainRead(request)) return { first: 0, count: blob.parts.length, build: (files) => buildReadStatement(meta.columns, files, request) };
    const window = plainWindow(blob.parts.map((p) => p.rows), request.offset, request.limit);
    return { ...window, build: (files) => buildReadStatement(meta.columns, files, { ...request, offset: window.offset }) };
  });
}

export function aggregate(ctx: StoreContext, principal: string, id: string, request: AggregateRequest): Promise<AggregateResult> {
  return query(ctx, principal, id, request, 'aggregate', (meta, blob) => ({ first: 0, count: blob.parts.length, build: (files) => buildAggregateStatement(meta.columns, files, request) }));
}

function csvHeader(names: string[]): Uint8Array {
  const quoted = names.map((n) => (/[",\r\n]/.test(n) ? `"${n.replaceAll('"', '""')}"` : n));
  return new TextEncoder().encode(`${quoted.join(',')}\n`);
}

export async function download(ctx: StoreContext, principal: string, id: string, format: DownloadFormat): Promise<Download> {
  const { meta, blob } = await readable(ctx, principal, id);
  const fileName = `${id}.${format}`;
  const only = blob.parts.length === 1 ? partRefs(blob)[0]! : null;
  if (format === 'parquet' && only !== null && ctx.bytes.capabilities.presign) {
    return { kind: 'redirect', url: await ctx.bytes.presignGet(only, DOWNLOAD_LINK_SECONDS), expiresInSeconds: DOWNLOAD_LINK_SECONDS };
  }
  const { files, release } = await leaseParts(ctx, blob);
  if (format === 'parquet' && only !== null) {
    const lease = files[0]!;
    const body = fileStream(lease.path, { sha256: lease.sha256, onCorrupt: () => ctx.log.error(`artifact ${id}: a stored part does not match its recorded SHA-256; it was not served whole.`), onClose: release });
    return { kind: 'stream', contentType: 'application/vnd.apache.parquet', fileName, body };
  }
  try {
    return await writeDownload(ctx, meta, files, format, fileName);
  } finally {
    release();
  }
}

/** Multi-part Parquet, CSV and JSONL: written to a temporary file by a read worker, then streamed from it. */
async function writeDownload(ctx: StoreContext, meta: ArtifactMeta, files: (PartFile & { sha256: string })[], format: DownloadFormat, fileName: string): Promise<Download> {
  await mkdir(ctx.downloadsRoot, { recursive: true });
  const file = join(ctx.downloadsRoot, `${randomUUID()}.${format}`);
  const source = `read_parquet([${files.map((p) => quoteLiteral(p.path)).join(', ')}])`;
  const verify = files.map((p) => ({ path: p.path, sha256: p.sha256 }));
  const columns = meta.columns;
  if (format === 'jsonl') {
    await ctx.workers.writeFile({ mode: 'lines', sql: `SELECT ${rowJsonExpression(columns)} FROM ${source}`, params: [], file, verify });
    return { kind: 'stream', contentType: 'application/x-ndjson', fileName, body: fileStream(file, { temporary: true }) };
  }
  const select = `SELECT ${columns.map((c) => quoteIdent(c.storageName)).join(', ')} FROM ${source}`;
  const options = format === 'csv' ? 'FORMAT csv, HEADER false' : 'FORMAT parquet, COMPRESSION snappy';
  await ctx.workers.writeFile({ mode: 'copy', sql: `COPY (${select}) TO ${quoteLiteral(file)} (${options})`, params: [], file, verify });
  return format === 'csv'
    ? { kind: 'stream', contentType: 'text/csv; charset=utf-8', fileName, body: fileStream(file, { temporary: true, prefix: csvHeader(columns.map((c) => c.name)) }) }
    : { kind: 'stream', contentType: 'application/vnd.apache.parquet', fileName, body: fileStream(file, { temporary: true }) };
}
