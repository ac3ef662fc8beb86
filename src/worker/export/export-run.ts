/**
 * One export, from SQL to Parquet parts, inside a query worker. It runs the
 * statement in a READ ONLY transaction with a statement timeout, streams the
 * CSV through the record scanner into rolling parts, fills the preview from
 * the first part, and applies the caps at exact record boundaries: the
 * artifact is either the whole result or a prefix that says which cap cut it.
 */
import { mkdirSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Sql, TransactionSql } from 'postgres';
import { SluiceError, toSluiceError } from '../../errors.ts';
import { planColumns, type PlannedColumn } from '../../columns/column-plan.ts';
import { sourceExpression } from './source-expression.ts';
import { describeQuery } from './describe-query.ts';
import { openCopySource, openCursorSource, type RowSource } from './row-sources.ts';
import type { ExportHooks, ExportRequest, ExportResult } from '../../query/export-types.ts';
import { streamToParts } from './stream-to-parts.ts';

/** PostgreSQL's own timeout sits behind the duration cap, so the cap (a clean prefix) fires first. */
const STATEMENT_TIMEOUT_GRACE_MS = 2_000;

export async function runExport(
  sql: Sql,
  duck: DuckDBConnection,
  request: ExportRequest,
  hooks: ExportHooks,
): Promise<ExportResult> {
  mkdirSync(request.stagingDir, { recursive: true });
  // Errors from inside are already contract errors; what the transaction itself throws
  // (a lost connection at BEGIN or COMMIT) is turned into one here.
  return (await sql.begin('read only', async (tx) => {
    await tx.unsafe(
      `SELECT set_config('statement_timeout', $1, true), set_config('TimeZone', 'UTC', true),
              set_config('DateStyle', 'ISO, MDY', true), set_config('IntervalStyle', 'postgres', true),
              set_config('extra_float_digits', '1', true), set_config('bytea_output', 'hex', true)`,
      [String(request.limits.maxDurationMs + STATEMENT_TIMEOUT_GRACE_MS)],
    );
    const described = await describeQuery(tx, request.sql, request.params).catch((e: unknown) => {
      throw toSluiceError(e);
    });
    if (described.paramTypes.length > request.params.length) {
      throw new SluiceError(
        'VALIDATION_ERROR',
        `The statement uses ${described.paramTypes.length} parameter(s) but ${request.params.length} were given in "params".`,
      );
    }
    if (described.columns.length === 0) {
      throw new SluiceError('VALIDATION_ERROR', 'The statement returns no columns; select at least one column.');
    }
    const columns = planColumns(described.columns);
    const source = await openSource(tx, request, columns, described.columns.map((c) => c.elementTypname));
    return streamToParts(source, duck, request, columns, hooks);
  }).catch((error: unknown) => {
    throw toSluiceError(error);
  })) as ExportResult;
}

async function openSource(
  tx: TransactionSql,
  request: ExportRequest,
  columns: PlannedColumn[],
  elements: (string | null)[],
): Promise<RowSource> {
  if (request.kind === 'explain') return openCursorSource(tx, request.sql, request.params);
  const fetchLimit = request.materialize === 'never' ? request.previewRows + 1 : request.limits.maxRows + 1;
  const aliases = columns.map((_, i) => `c${i}`).join(', ');
  const exprs = columns.map((c, i) => sourceExpression(c, i, elements[i] ?? null));
  const from = `FROM (${request.sql}\n) AS q(${aliases}) LIMIT ${fetchLimit}`;
  try {
    if (request.params.length > 0) {
      return openCursorSource(tx, `SELECT ${exprs.map((e) => `(${e})::text`).join(', ')} ${from}`, request.params);
    }
    return openCopySource(tx, `SELECT ${exprs.join(', ')} ${from}`);
  } catch (e) {
    throw toSluiceError(e);
  }
}

