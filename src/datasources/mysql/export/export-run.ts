/**
 * One export on MySQL or MariaDB, inside a query worker, on the worker's
 * session for the datasource: the server's own statement time limit set
 * behind the duration cap (MariaDB's max_statement_time in seconds, MySQL's
 * max_execution_time in milliseconds), the statement in a READ ONLY
 * transaction of a READ ONLY session, its columns planned from the result's
 * metadata before the first row, and its rows streamed to the core, which
 * applies the caps at exact record boundaries.
 */
import { SluiceError } from '../../../errors.ts';
import type { ConsumeRows } from '../../driver.ts';
import type { ExportRequest, ExportResult } from '../../../worker/export-types.ts';
import { toMysqlSluiceError, unavailable } from '../mysql-errors.ts';
import type { MysqlTarget } from '../mysql-url.ts';
import { bindParams } from './bind-params.ts';
import { QueryKiller } from './kill-query.ts';
import { run, type MysqlSession } from './mysql-session.ts';
import { openRows } from './row-stream.ts';

/** The server's own limit sits behind the duration cap, so the cap (a clean prefix) fires first. */
const STATEMENT_TIMEOUT_GRACE_MS = 2_000;

function limitsStatement(session: MysqlSession, request: ExportRequest, fetchLimit: number): string {
  const ms = request.limits.maxDurationMs + STATEMENT_TIMEOUT_GRACE_MS;
  const time = session.flavor === 'mariadb' ? `max_statement_time = ${(ms / 1000).toFixed(3)}` : `max_execution_time = ${ms}`;
  return `SET SESSION ${time}, SESSION sql_select_limit = ${fetchLimit}`;
}

export async function runExport(target: MysqlTarget, session: MysqlSession, request: ExportRequest, consume: ConsumeRows): Promise<ExportResult> {
  const sql = bindParams(request.sql, request.params);
  const fetchLimit = request.materialize === 'never' ? request.previewRows + 1 : request.limits.maxRows + 1;
  const killer = new QueryKiller(target, session.threadId);
  try {
    await run(session.connection, limitsStatement(session, request, fetchLimit));
    await run(session.connection, 'START TRANSACTION READ ONLY');
  } catch (error) {
    throw failure(session, error, sql);
  }
  try {
    const { columns, source } = await openRows(session.connection, sql, fetchLimit, killer);
    if (columns.length === 0) throw new SluiceError('VALIDATION_ERROR', 'The statement returns no columns; select at least one column.');
    const result = await consume(columns, source);
    // A kill sent as the statement ended must reach the session before the next statement does.
    await killer.settled();
    await run(session.connection, 'COMMIT');
    return result;
  } catch (error) {
    await killer.settled();
    // A lost connection has nothing left to roll back; its own error is the one to report.
    await run(session.connection, 'ROLLBACK').catch(() => undefined);
    throw failure(session, error, sql);
  }
}

/** The contract error for what the export threw: a lost connection is retryable, whatever its first symptom said. */
function failure(session: MysqlSession, error: unknown, sql: string): SluiceError {
  const connection = session.connection as unknown as { _fatalError?: unknown; _closing?: boolean };
  if (!(error instanceof SluiceError) && (connection._fatalError != null || connection._closing === true)) return unavailable('CONNECTION_LOST');
  return toMysqlSluiceError(error, sql);
}
