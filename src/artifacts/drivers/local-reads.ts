/**
 * Reads of the local store: pages, aggregates and downloads, each
 * re-authorized against the caller first. DuckDB does the work on the
 * worker pool; a download is written to a temporary file by a worker and
 * streamed from there with back-pressure (or, for a one-part Parquet
 * artifact, streamed straight from the store with its hash checked).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SluiceError } from '../../errors.ts';
import { quoteIdent, quoteLiteral } from '../../columns/column-plan.ts';
import { buildAggregateStatement } from '../aggregate-sql.ts';
import { fileStream } from '../file-stream.ts';
import { buildReadStatement, type PartFile } from '../read-sql.ts';
import type { AggregateRequest, AggregateResult, Download, DownloadFormat, ReadPage, ReadRequest } from '../types.ts';
import { rowJsonExpression } from '../../columns/value-encoding.ts';
import type { ArtifactRow } from './artifact-rows.ts';
import { objectDir, type LocalContext } from './local-layout.ts';

export function readableRow(ctx: LocalContext, principal: string, id: string): ArtifactRow {
  const row = ctx.rows.find(principal, id);
  if (row === undefined || row.state === 'DELETED') {
    throw new SluiceError('NOT_FOUND', `No artifact "${id}" exists for this caller.`);
  }
  if (row.state === 'EXPIRED' || row.expires_at <= ctx.now().toISOString()) {
    throw new SluiceError('ARTIFACT_EXPIRED', `Artifact "${id}" expired at ${row.expires_at}; run the query again to recreate it.`, {
      expiresAt: row.expires_at,
    });
  }
  return row;
}

function partsOf(ctx: LocalContext, row: ArtifactRow): (PartFile & { sha256: string })[] {
  const blob = ctx.rows.blob(row.hash);
  if (blob === undefined) throw new SluiceError('INTERNAL', 'The artifact\u2019s bytes are missing from the store.');
  return blob.partsList.map((p) => ({ path: join(objectDir(ctx, blob.location), p.name), rows: p.rows, sha256: p.sha256 }));
}

export async function readPage(ctx: LocalContext, principal: string, id: string, request: ReadRequest): Promise<ReadPage> {
  const row = readableRow(ctx, principal, id);
  const statement = buildReadStatement(ctx.rows.toMeta(row).columns, partsOf(ctx, row), request);
  const result = await ctx.workers.read(statement.sql, statement.params);
  const more = result.length > request.limit;
  return {
    columns: statement.columns.map((c) => ({ name: c.name, type: c.type })),
    rows: more ? result.slice(0, request.limit) : result,
    more,
  };
}

export async function aggregate(ctx: LocalContext, principal: string, id: string, request: AggregateRequest): Promise<AggregateResult> {
  const row = readableRow(ctx, principal, id);
  const statement = buildAggregateStatement(ctx.rows.toMeta(row).columns, partsOf(ctx, row), request);
  const result = await ctx.workers.read(statement.sql, statement.params);
  const more = result.length > request.limit;
  return { columns: statement.columns, rows: more ? result.slice(0, request.limit) : result, more };
}

function csvHeader(names: string[]): Uint8Array {
  const quoted = names.map((n) => (/[",\r\n]/.test(n) ? `"${n.replaceAll('"', '""')}"` : n));
  return new TextEncoder().encode(`${quoted.join(',')}\n`);
}

export async function download(ctx: LocalContext, principal: string, id: string, format: DownloadFormat): Promise<Download> {
  const row = readableRow(ctx, principal, id);
  const columns = ctx.rows.toMeta(row).columns;
  const parts = partsOf(ctx, row);
  const fileName = `${id}.${format}`;
  if (format === 'parquet' && parts.length === 1) {
    const only = parts[0]!;
    return { contentType: 'application/vnd.apache.parquet', fileName, body: fileStream(only.path, { sha256: only.sha256, onCorrupt: () => ctx.log.error(`artifact ${id}: a stored part does not match its recorded SHA-256; it was not served whole.`) }) };
  }
  mkdirSync(ctx.downloadsRoot, { recursive: true });
  const file = join(ctx.downloadsRoot, `${randomUUID()}.${format}`);
  const source = `read_parquet([${parts.map((p) => quoteLiteral(p.path)).join(', ')}])`;
  const verify = parts.map((p) => ({ path: p.path, sha256: p.sha256 }));
  if (format === 'jsonl') {
    await ctx.workers.writeFile({ mode: 'lines', sql: `SELECT ${rowJsonExpression(columns)} FROM ${source}`, params: [], file, verify });
    return { contentType: 'application/x-ndjson', fileName, body: fileStream(file, { temporary: true }) };
  }
  const select = `SELECT ${columns.map((c) => quoteIdent(c.storageName)).join(', ')} FROM ${source}`;
  const options = format === 'csv' ? 'FORMAT csv, HEADER false' : 'FORMAT parquet, COMPRESSION snappy';
  await ctx.workers.writeFile({ mode: 'copy', sql: `COPY (${select}) TO ${quoteLiteral(file)} (${options})`, params: [], file, verify });
  return format === 'csv'
    ? { contentType: 'text/csv; charset=utf-8', fileName, body: fileStream(file, { temporary: true, prefix: csvHeader(columns.map((c) => c.name)) }) }
    : { contentType: 'application/vnd.apache.parquet', fileName, body: fileStream(file, { temporary: true }) };
}
