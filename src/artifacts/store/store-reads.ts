/**
 * Reads of the store: pages and aggregates (page-reads.ts) and downloads,
 * each re-authorized against the catalog first. The parts are leased from the byte store as
 * local files (downloaded into the cache and checked against their hash
 * first when they live in a bucket) and released when DuckDB is done with
 * them; DuckDB runs on the read workers. A one-part Parquet download from a
 * bucket is a redirect to a short-lived signed link; everything else is
 * streamed with back-pressure.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { quoteIdent, quoteLiteral } from '../../columns/column-plan.ts';
import { rowJsonExpression } from '../../columns/value-encoding.ts';
import { fileStream } from '../file-stream.ts';
import type { PartFile } from '../read-sql.ts';
import type { ArtifactMeta, Download, DownloadFormat } from '../types.ts';
import { leaseParts, partRefs, readable } from './readable.ts';
import type { StoreContext } from './store-context.ts';

/** Download links are used at once by the client that asked: a few minutes is plenty. */
export const DOWNLOAD_LINK_SECONDS = 300;

export { aggregate, readPage } from './page-reads.ts';
export { readable } from './readable.ts';

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
