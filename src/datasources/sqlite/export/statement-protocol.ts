/**
 * What crosses between an export and its statement process: one request a
 * line of JSON on the process's stdin (or `stop`), and frames back on its
 * stdout: a kind byte, a 4-byte big-endian length, the payload. Row frames
 * carry whole CSV records as bytes, so nothing is copied into JSON. Both
 * sides import this module; it imports nothing of the server.
 */
import { Buffer } from 'node:buffer';
import type { SqliteColumnPlan } from '../sqlite-column-types.ts';

/** A bound value as JSON carries it; the process binds integers as 64-bit INTEGER and booleans as 0 or 1. */
export type BoundValue = string | number | boolean | null;

export interface StatementRequest {
  file: string;
  sql: string;
  params: BoundValue[];
  /** Rows to read at most; the statement is not stepped further. */
  fetchLimit: number;
  /** Per result column, the type its select list gives it (sql/result-types.ts), or null; null when the list does not line up. */
  resultTypes: (string | null)[] | null;
  busyTimeoutMs: number;
}

/** The line that asks the process to stop the statement it runs, between two batches of rows. */
export const STOP_LINE = 'stop';

/** A failure as data: SQLite's own (code and message) or one of the contract's. */
export type StatementFailure =
  | { kind: 'sqlite'; code: string; message: string }
  | { kind: 'contract'; code: 'SQL_ERROR' | 'VALIDATION_ERROR' | 'DATASOURCE_UNAVAILABLE'; message: string }
  | { kind: 'stopped' };

export type Frame =
  | { kind: 'started' }
  | { kind: 'columns'; columns: SqliteColumnPlan[] }
  | { kind: 'rows'; rows: number; longestRow: number; bytes: Uint8Array }
  | { kind: 'end' }
  | { kind: 'failed'; failure: StatementFailure };

const KIND_BYTES = { columns: 1, rows: 2, end: 3, failed: 4, started: 5 } as const;
export const HEADER_BYTES = 5;
/** A rows frame's payload starts with its record count and longest record, 4 bytes each. */
const ROWS_HEADER_BYTES = 8;

function frame(kind: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(kind, 0);
  header.writeUInt32BE(payload.byteLength, 1);
  return Buffer.concat([header, payload]);
}

/**
 * A frame as the pieces to write in order: a rows frame is its header and
 * the records' own bytes, so a megabyte of records is never copied into a
 * frame (the records are the writer's to give away: CsvChunkWriter.take).
 */
export function encodeFrame(f: Frame): Uint8Array[] {
  if (f.kind !== 'rows') return [encodeControlFrame(f)];
  const header = Buffer.allocUnsafe(HEADER_BYTES + ROWS_HEADER_BYTES);
  header.writeUInt8(KIND_BYTES.rows, 0);
  header.writeUInt32BE(ROWS_HEADER_BYTES + f.bytes.byteLength, 1);
  header.writeUInt32BE(f.rows, HEADER_BYTES);
  header.writeUInt32BE(Math.min(f.longestRow, 0xffffffff), HEADER_BYTES + 4);
  return [header, f.bytes];
}

function encodeControlFrame(f: Exclude<Frame, { kind: 'rows' }>): Buffer {
  switch (f.kind) {
    case 'columns':
      return frame(KIND_BYTES.columns, Buffer.from(JSON.stringify(f.columns)));
    case 'end':
      return frame(KIND_BYTES.end, Buffer.alloc(0));
    case 'started':
      return frame(KIND_BYTES.started, Buffer.alloc(0));
    case 'failed':
      return frame(KIND_BYTES.failed, Buffer.from(JSON.stringify(f.failure)));
  }
}

/** The length of the frame starting at `header`'s first byte (header included). */
export function frameLength(header: Buffer): number {
  return HEADER_BYTES + header.readUInt32BE(1);
}

export function decodeFrame(whole: Buffer): Frame {
  const payload = whole.subarray(HEADER_BYTES);
  switch (whole.readUInt8(0)) {
    case KIND_BYTES.columns:
      return { kind: 'columns', columns: JSON.parse(payload.toString('utf8')) as SqliteColumnPlan[] };
    case KIND_BYTES.rows:
      return { kind: 'rows', rows: payload.readUInt32BE(0), longestRow: payload.readUInt32BE(4), bytes: payload.subarray(ROWS_HEADER_BYTES) };
    case KIND_BYTES.end:
      return { kind: 'end' };
    case KIND_BYTES.started:
      return { kind: 'started' };
    case KIND_BYTES.failed:
      return { kind: 'failed', failure: JSON.parse(payload.toString('utf8')) as StatementFailure };
    default:
      throw new Error(`A statement process sent a frame of unknown kind ${whole.readUInt8(0)}.`);
  }
}
