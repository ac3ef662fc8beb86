/**
 * One export on PostgreSQL, inside a query worker, on the worker's
 * node-postgres session: the statement in a READ ONLY transaction with a
 * statement timeout, the session settings the value encoding relies on and
 * the caller's row-level scope (scope-settings.ts), its columns described
 * before any row is fetched, and its rows handed to the core as PostgreSQL's
 * CSV (COPY, or a cursor where COPY cannot run), which applies the caps at
 * exact record boundaries.
 */
import type pg from 'pg';
import { SluiceError } from '../../../errors.ts';
import type { PlannedColumn } from '../../../columns/column-plan.ts';
import type { ConsumeRows } from '../../driver.ts';
import { planPgColumns } from '../pg-column-types.ts';
import { toPgSluiceError } from '../pg-errors.ts';
import { applyScope } from './scope-settings.ts';
import { sourceExpression } from './source-expression.ts';
import { describeQuery } from './describe-query.ts';
import { CancelRequest } from './cancel-request.ts';
import { connectionLost } from './pg-connect.ts';
import { openCopySource, openCursorSource, type RowSource } from './row-sources.ts';
import type { ExportRequest, ExportResult } from '../../../worker/export-types.ts';

/** PostgreSQL's own timeout sits behind the duration cap, so the cap (a clean prefix) fires first. */
const STATEMENT_TIMEOUT_GRACE_MS = 2_000;

export async function runExport(client: pg.Client, request: ExportRequest, consume: ConsumeRows): Promise<ExportResult> {
  const canceller = new CancelRequest(client);
  try {
    await client.query('BEGIN READ ONLY');
  } catch (error) {
    throw failure(client, error);
  }
  try {
    const result = await inTransaction(client, request, consume, () => canceller.send());
    // A cancel sent as the statement ended must reach the session before the next statement does.
    await canceller.settled();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await canceller.settled();
    // A lost connection has nothing left to roll back; its own error is the one to report.
    await client.query('ROLLBACK').catch(() => undefined);
    throw failure(client, error);
  }
}

/** The contract error for what the export threw: a lost connection is retryable, whatever its first symptom said. */
function failure(client: pg.Client, error: unknown): SluiceError {
  if (!connectionLost(client)) return toPgSluiceError(error);
  return toPgSluiceError(Object.assign(new Error('The connection to the database ended.'), { code: 'CONNECTION_CLOSED', cause: error }));
}

async function inTransaction(
  client: pg.Client,
  request: ExportRequest,
  consume: ConsumeRows,
  cancel: () => void,
): Promise<ExportResult> {
  await client.query(
    `SELECT set_config('statement_timeout', $1, true), set_config('TimeZone', 'UTC', true),
            set_config('DateStyle', 'ISO, MDY', true), set_config('IntervalStyle', 'postgres', true),
            set_config('extra_float_digits', '1', true), set_config('bytea_output', 'hex', true)`,
    [String(request.limits.maxDurationMs + STATEMENT_TIMEOUT_GRACE_MS)],
  );
  // In the same transaction as the statement, so its row-level security policies read the caller's values.
  await applyScope(client, request.scope ?? []);
  const described = await describeQuery(client, request.sql);
  if (described.paramTypes.length > request.params.length) {
    throw new SluiceError(
      'VALIDATION_ERROR',
      `The statement uses ${described.paramTypes.length} parameter(s) but ${request.params.length} were given in "params".`,
    );
  }
  if (described.columns.length === 0) {
    throw new SluiceError('VALIDATION_ERROR', 'The statement returns no columns; select at least one column.');
  }
  const columns = planPgColumns(described.columns);
  const source = openSource(client, request, columns, described.columns.map((c) => c.elementTypname), cancel);
  return consume(columns, source);
}

function openSource(
  client: pg.Client,
  request: ExportRequest,
  columns: PlannedColumn[],
  elements: (string | null)[],
  cancel: () => void,
): RowSource {
  if (request.kind === 'explain') return openCursorSource(client, request.sql, request.params, cancel);
  const fetchLimit = request.materialize === 'never' ? request.previewRows + 1 : request.limits.maxRows + 1;
  const aliases = columns.map((_, i) => `c${i}`).join(', ');
  const exprs = columns.map((c, i) => sourceExpression(c, i, elements[i] ?? null));
  const from = `FROM (${request.sql}\n) AS q(${aliases}) LIMIT ${fetchLimit}`;
  if (request.params.length > 0) {
    return openCursorSource(client, `SELECT ${exprs.map((e) => `(${e})::text`).join(', ')} ${from}`, request.params, cancel);
  }
  return openCopySource(client, `SELECT ${exprs.join(', ')} ${from}`, cancel);
}
