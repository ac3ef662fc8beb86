/**
 * One statement inside a statement process: the file opened read-only,
 * the statement prepared (one with no result columns is never stepped:
 * VACUUM INTO, ATTACH or a setting would act at the first step even on a
 * read-only connection), its columns planned from their declared types and
 * the first rows, and its rows sent as CSV batches until the fetch limit,
 * the end, or a stop. Between batches the process yields to its event loop,
 * so a stop line is read and the pipe's backpressure holds it.
 */
import { openReadOnly } from '../engine/open-connection.ts';
import type { SqliteConnection, SqliteValue } from '../engine/sqlite-connection.ts';
import { CsvChunkWriter } from '../../../worker/export/csv-chunk-writer.ts';
import { MixedColumnError, planColumn, storageClassOf, valueWriter, type SqliteColumnPlan, type StorageClass } from '../sqlite-column-types.ts';
import { sqliteFailureOf } from '../sqlite-errors.ts';
import { sendBatch, sendRowsThroughFunction } from './function-rows.ts';
import type { BoundValue, Frame, StatementFailure, StatementRequest } from './statement-protocol.ts';

/** About this many bytes of CSV per frame: fewer, larger frames cost the pipe and both event loops less. */
const FRAME_BYTES = 1024 * 1024;
/** A frame goes sooner when rows come slowly, so the export (its preview, its caps, its deadline) sees them. */
const FRAME_MS = 50;
/** How often the clock is read, in rows. */
const CLOCK_EVERY_ROWS = 64;
/** Rows read ahead to find the first non-NULL value of a column with no declared type. */
const LOOKAHEAD_ROWS = 256;

export interface StatementIo {
  send(frame: Frame): Promise<void>;
  /** send resolves only once a frame's bytes are written out, so a rows frame's buffer can be written over. */
  writesThrough?: boolean;
  /** True once the export asked to stop. */
  stopped(): boolean;
}

function bind(value: BoundValue): SqliteValue {
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return value;
}

function failureOf(error: unknown, opening: boolean): StatementFailure {
  if (error instanceof MixedColumnError) return { kind: 'contract', code: 'SQL_ERROR', message: error.message };
  const sqlite = sqliteFailureOf(error);
  if (sqlite !== undefined) return { kind: 'sqlite', ...sqlite };
  // Anything else at open (a missing directory, as better-sqlite3 reports it) means the file cannot be opened.
  if (opening) return { kind: 'sqlite', code: 'SQLITE_CANTOPEN', message: 'unable to open database file' };
  // A library's own refusal (a value it cannot bind): its message, which names no path.
  return { kind: 'contract', code: 'SQL_ERROR', message: error instanceof Error ? error.message : 'The statement failed.' };
}

export async function runStatement(request: StatementRequest, io: StatementIo): Promise<void> {
  // The statement's time starts now, not when the process started.
  await io.send({ kind: 'started' });
  let connection: SqliteConnection;
  try {
    connection = await openReadOnly(request.file, { busyTimeoutMs: request.busyTimeoutMs });
  } catch (error) {
    return io.send({ kind: 'failed', failure: failureOf(error, true) });
  }
  try {
    await stream(connection, request, io);
  } catch (error) {
    await io.send({ kind: 'failed', failure: failureOf(error, false) });
  } finally {
    connection.close();
  }
}

async function stream(connection: SqliteConnection, request: StatementRequest, io: StatementIo): Promise<void> {
  const query = connection.prepare(request.sql);
  const columns = query.columns();
  if (columns.length === 0) {
    return io.send({ kind: 'failed', failure: { kind: 'contract', code: 'VALIDATION_ERROR', message: 'The statement returns no columns; select at least one column.' } });
  }
  // Some libraries step the first row as soon as iteration starts: it starts only once a row is needed.
  let rows: Iterator<SqliteValue[]> | null = null;
  const iterate = () => (rows ??= query.rows(request.params.map(bind)));
  try {
    // Result types are read from the select list; `*` or a count that does not match leaves them out.
    const hinted = request.resultTypes?.length === columns.length ? request.resultTypes : null;
    const declared = columns.map((c, i) => hinted?.[i] ?? c.declaredType);
    const ahead = readAhead(iterate, declared, request.fetchLimit);
    const plans = columns.map((c, i) => planColumn(c.name, declared[i] ?? null, firstClass(ahead.rows, i)));
    await io.send({ kind: 'columns', columns: plans });
    // Rows read ahead were stepped from here: the rest must be too.
    const timing = { frameBytes: FRAME_BYTES, frameMs: FRAME_MS, clockEveryRows: CLOCK_EVERY_ROWS };
    if (rows === null && (await sendRowsThroughFunction(connection, request, request.params.map(bind), plans, timing, io))) return;
    await sendRows(iterate(), ahead, plans, request.fetchLimit, io);
  } finally {
    // Ends the statement now, so its read lock on the file goes with it.
    (rows as Iterator<SqliteValue[]> | null)?.return?.();
  }
}

/** The first rows, read only while a column with no type has not shown a non-NULL value. */
function readAhead(iterate: () => Iterator<SqliteValue[]>, declared: (string | null)[], fetchLimit: number): { rows: SqliteValue[][]; done: boolean } {
  const ahead: SqliteValue[][] = [];
  const open = new Set(declared.flatMap((d, i) => (d === null || d.trim() === '' ? [i] : [])));
  // Columns typed without a row are sent before the first step, so the export can stop the statement from the start.
  while (open.size > 0 && ahead.length < Math.min(LOOKAHEAD_ROWS, fetchLimit)) {
    const step = iterate().next();
    if (step.done === true) return { rows: ahead, done: true };
    ahead.push(step.value);
    for (const i of open) if (step.value[i] !== null) open.delete(i);
  }
  return { rows: ahead, done: false };
}

function firstClass(rows: SqliteValue[][], column: number): StorageClass {
  for (const row of rows) if (row[column] !== null) return storageClassOf(row[column] ?? null);
  return 'null';
}

async function sendRows(rows: Iterator<SqliteValue[]>, ahead: { rows: SqliteValue[][]; done: boolean }, plans: SqliteColumnPlan[], fetchLimit: number, io: StatementIo): Promise<void> {
  const batch = new CsvChunkWriter(plans.length, FRAME_BYTES);
  const writers = plans.map(valueWriter);
  const width = plans.length;
  const add = (row: SqliteValue[]) => {
    for (let i = 0; i < width; i++) writers[i]!(batch, row[i] ?? null);
    batch.endRecord();
  };
  for (const row of ahead.rows) add(row);
  let read = ahead.rows.length;
  let sentAt = performance.now();
  while (!ahead.done && read < fetchLimit) {
    const step = rows.next();
    if (step.done === true) break;
    add(step.value);
    read++;
    if (batch.full || (read % CLOCK_EVERY_ROWS === 0 && performance.now() - sentAt >= FRAME_MS)) {
      await sendBatch(batch, io);
      sentAt = performance.now();
      if (io.stopped()) return io.send({ kind: 'failed', failure: { kind: 'stopped' } });
    }
  }
  if (batch.rows > 0) await sendBatch(batch, io);
  return io.send({ kind: 'end' });
}
