/**
 * A statement's rows written inside SQLite's own step: the statement is
 * read through a row function (a SQL function of JavaScript called once per
 * row with its values), which writes each row into the CSV batch and lets
 * the statement yield only when a frame is due. Stepping from JavaScript
 * costs a call into the library and a row array per row, about as much as
 * writing the row; a function call per row costs a third of that
 * (bench/runs/2026-12-01-lite-maria.md).
 *
 * The user's statement is the body of a CTE whose column list names its
 * columns by position, read through a subquery with a LIMIT, which SQLite
 * never merges into a query with a WHERE (nor pushes the WHERE into): the
 * function sees the rows in the statement's own order, after its ORDER BY,
 * as the statement's own iteration would. A statement that cannot be a CTE's
 * body (a PRAGMA, EXPLAIN, a trailing semicolon) is read the usual way.
 */
import { randomBytes } from 'node:crypto';
import type { SqliteConnection, SqliteValue } from '../engine/sqlite-connection.ts';
import { CsvChunkWriter } from '../../../worker/export/csv-chunk-writer.ts';
import { valueWriter, type SqliteColumnPlan } from '../sqlite-column-types.ts';
import type { StatementIo } from './run-statement.ts';

export interface FrameTiming {
  frameBytes: number;
  frameMs: number;
  clockEveryRows: number;
}

/** `sql` read through the row function `name` of `width` arguments; the line break ends a trailing `--` comment. */
export function throughRowFunction(sql: string, width: number, name: string): string {
  const columns = Array.from({ length: width }, (_, i) => `c${i}`).join(', ');
  return `WITH sluice_rows(${columns}) AS (${sql}\n) SELECT 1 FROM (SELECT * FROM sluice_rows LIMIT -1) WHERE ${name}(${columns})`;
}

/**
 * Streams the statement's rows through a row function; false (nothing sent,
 * nothing stepped) when the library has none or the statement cannot be read
 * that way.
 */
export async function sendRowsThroughFunction(
  connection: SqliteConnection,
  request: { sql: string; fetchLimit: number },
  params: SqliteValue[],
  plans: SqliteColumnPlan[],
  timing: FrameTiming,
  io: StatementIo,
): Promise<boolean> {
  const width = plans.length;
  const batch = new CsvChunkWriter(width, timing.frameBytes);
  const writers = plans.map(valueWriter);
  const { fetchLimit } = request;
  let read = 0;
  let sentAt = performance.now();
  /** A value that failed inside the step: kept here and thrown once the step returns, whatever the library does with a function's error. */
  let failure: { error: unknown } | null = null;
  // Unguessable, so no statement can call it by name.
  const name = `sluice_row_${randomBytes(8).toString('hex')}`;
  const sink = (values: ArrayLike<SqliteValue>): boolean => {
    if (failure !== null || read >= fetchLimit) return true;
    try {
      for (let i = 0; i < width; i++) writers[i]!(batch, values[i] ?? null);
    } catch (error) {
      batch.dropRecord();
      failure = { error };
      return true;
    }
    batch.endRecord();
    read++;
    return read >= fetchLimit || batch.full || (read % timing.clockEveryRows === 0 && performance.now() - sentAt >= timing.frameMs);
  };
  if (!connection.rowFunction(name, width, sink)) return false;
  let steps: Iterator<SqliteValue[]>;
  try {
    steps = connection.prepare(throughRowFunction(request.sql, width, name)).rows(params);
  } catch {
    return false;
  }
  try {
    for (;;) {
      const step = steps.next();
      if (failure !== null) throw (failure as { error: unknown }).error;
      if (step.done === true || read >= fetchLimit) break;
      if (batch.rows > 0) {
        await sendBatch(batch, io);
        sentAt = performance.now();
      }
      if (io.stopped()) {
        await io.send({ kind: 'failed', failure: { kind: 'stopped' } });
        return true;
      }
    }
  } finally {
    // Ends the statement now, so its read lock on the file goes with it.
    steps.return?.();
  }
  if (batch.rows > 0) await sendBatch(batch, io);
  await io.send({ kind: 'end' });
  return true;
}

/** The batch's whole records as a rows frame; their buffer is written into again once they are written out. */
export async function sendBatch(batch: CsvChunkWriter, io: StatementIo): Promise<void> {
  await io.send({ kind: 'rows', ...batch.take() });
  if (io.writesThrough === true) batch.giveBack();
}
