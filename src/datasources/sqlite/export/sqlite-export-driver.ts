/**
 * SQLite's export half, one per query worker. The statement runs in a
 * statement process (statement-process-main.ts), never on the worker's
 * event loop: SQLite steps synchronously, and only a process can be ended
 * mid-step. The worker parses the statement for its parameters and CAST
 * types, the process plans the columns from the first rows and streams
 * PostgreSQL-style CSV back, and the core applies the caps.
 */
import { SluiceError } from '../../../errors.ts';
import { planColumns } from '../../../columns/column-plan.ts';
import type { ExportRequest } from '../../../worker/export-types.ts';
import type { ExportDriver } from '../../driver.ts';
import { sqliteError } from '../sqlite-errors.ts';
import { sqliteFileOf } from '../sqlite-url.ts';
import { resultTypes } from '../sql/result-types.ts';
import { denseParameters, parameterCount } from '../sql/parameters.ts';
import { parseOne } from '../sql/parse-sqlite.ts';
import { failureError, processEnded, ProcessRowSource } from './process-row-source.ts';
import { StatementProcesses } from './statement-processes.ts';
import type { StatementProcess } from './statement-process.ts';
import type { BoundValue, Frame, StatementRequest } from './statement-protocol.ts';

/** A writer holding the file locked makes a statement wait this long before it fails as unavailable. */
export const STATEMENT_BUSY_TIMEOUT_MS = 5_000;

/** The statement and its values as the process binds them: checked against what the statement uses, numbered without gaps. */
function bound(request: ExportRequest): { sql: string; values: BoundValue[] } {
  const values = request.params.map((value, i) => {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value as BoundValue;
    throw new SluiceError('VALIDATION_ERROR', `Parameter ?${i + 1} is not a string, number, boolean or null.`);
  });
  const statement = parseOne(request.sql);
  if (statement === null) return { sql: request.sql, values };
  const used = parameterCount(statement);
  if (used !== values.length) {
    throw new SluiceError('VALIDATION_ERROR', `The statement uses ${used} parameter(s) but ${values.length} were given in "params".`);
  }
  return denseParameters(request.sql, statement, values);
}

function statementRequest(url: string, request: ExportRequest): StatementRequest {
  const { sql, values } = bound(request);
  return {
    file: sqliteFileOf(url),
    sql,
    params: values,
    fetchLimit: request.materialize === 'never' ? request.previewRows + 1 : request.limits.maxRows + 1,
    resultTypes: request.kind === 'explain' ? null : resultTypes(request.sql),
    busyTimeoutMs: STATEMENT_BUSY_TIMEOUT_MS,
  };
}

/**
 * The columns frame, or QUERY_TIMEOUT once the duration cap passes without
 * it (counted from when the process took the statement, not from its start-up): a column typed by its first row waits for that row before the core
 * (and its own deadline and stopper) can start, so the cap is kept here.
 */
async function columnsWithin(process: StatementProcess, limitMs: number): Promise<Frame | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      process.kill();
      reject(new SluiceError('QUERY_TIMEOUT', `The query returned no row within ${limitMs} ms and was stopped.`, { limitMs }));
    }, limitMs);
  });
  try {
    return await Promise.race([process.next(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function createSqliteExportDriver(): ExportDriver {
  const processes = new StatementProcesses();
  return {
    async export(url, request, consume) {
      const statement = statementRequest(url, request);
      const process = processes.acquire();
      let clean = false;
      try {
        process.run(statement);
        const started = await process.next();
        if (started?.kind !== 'started') throw processEnded();
        const first = await columnsWithin(process, request.limits.maxDurationMs);
        if (first === null) throw processEnded();
        if (first.kind === 'failed') {
          clean = true;
          throw failureError(first.failure);
        }
        if (first.kind !== 'columns') throw new Error('A statement process sent rows before its columns.');
        const source = new ProcessRowSource(process);
        try {
          return await consume(planColumns(first.columns), source);
        } finally {
          clean = source.finished;
        }
      } finally {
        processes.release(process, clean);
      }
    },
    mapError: sqliteError,
    async close() {
      processes.close();
    },
  };
}
