/**
 * A statement's rows as the core's RowSource: mysql2's query (rows arrive
 * as the server sends them, with backpressure on the socket, never a
 * buffered result), each row packet read by a row parser of our own that
 * writes its values from the bytes the server sent straight into CSV
 * records (row-values.ts, csv-chunk-writer.ts), in chunks. mysql2's own
 * parser would make a Buffer or string per value and a JavaScript array
 * per row, which cost most of an export's time (bench/runs/
 * 2026-12-01-kinds-export.md). The columns are planned from the result's
 * field metadata, which arrives before the first row.
 *
 * The export fetches at most `fetchLimit` rows (a row cap + 1, so the core
 * knows there were more): the session's sql_select_limit asks the server for
 * no more, and a statement whose own LIMIT overrides it is stopped here with
 * a KILL QUERY once enough rows arrived.
 */
import type { Connection, Query } from 'mysql2';
import { SluiceError } from '../../../errors.ts';
import type { PlannedColumn } from '../../../columns/column-plan.ts';
import type { RowSource, SourceChunk } from '../../../worker/export/row-source.ts';
import { CsvChunkWriter } from '../../../worker/export/csv-chunk-writer.ts';
import { mysqlColumns, type MysqlField, type ValueReader } from '../column-types.ts';
import { ER_QUERY_INTERRUPTED } from '../mysql-errors.ts';
import { writeValue } from '../row-values.ts';
import type { QueryKiller } from './kill-query.ts';

/** A chunk is handed on once it holds this much CSV (or sooner, when the export is waiting for one). */
const CHUNK_BYTES = 1024 * 1024;
/** Chunks waiting for the export before the socket is paused. */
const QUEUED_CHUNKS = 2;

export interface OpenedRows {
  columns: PlannedColumn[];
  source: RowSource;
}

/**
 * The result's columns as the server describes the statement when preparing
 * it, without running it: a statement may send its metadata only with its
 * first row (SELECT SLEEP(30) does), and the export's stopper and deadline
 * exist only once the core has the columns.
 */
function describe(connection: Connection, sql: string): Promise<MysqlField[]> {
  return new Promise((resolve, reject) => {
    connection.prepare(sql, (error, statement) => {
      if (error) return reject(error);
      const columns = (statement as unknown as { columns: MysqlField[] }).columns;
      connection.unprepare(sql);
      resolve(columns);
    });
  });
}

/** The statement's columns, and the source that runs it and streams its rows. */
export async function openRows(connection: Connection, sql: string, fetchLimit: number, killer: QueryKiller): Promise<OpenedRows> {
  const described = mysqlColumns(await describe(connection, sql));
  const iterate = () => new CsvRows(connection, sql, described, fetchLimit, killer).chunks();
  return { columns: described.columns, source: { cancel: () => killer.kill(), [Symbol.asyncIterator]: iterate } };
}

/** The metadata the running statement sent must plan the columns as its description did, or values would be misread. */
function checkSameColumns(described: PlannedMetadata, fields: MysqlField[]): ValueReader[] {
  const running = mysqlColumns(fields);
  const differs = running.columns.length !== described.columns.length || running.columns.some((c, i) => c.storage !== described.columns[i]!.storage || c.duckType !== described.columns[i]!.duckType);
  if (differs) throw new SluiceError('SQL_ERROR', 'The server described the result differently when running the statement than when preparing it; cast the columns to explicit types.');
  return running.readers;
}

type PlannedMetadata = ReturnType<typeof mysqlColumns>;

function isOurStop(error: unknown): boolean {
  return (error as { errno?: unknown } | null)?.errno === ER_QUERY_INTERRUPTED;
}

/** What mysql2 hands a row parser: the row packet, read from its offset to its end. */
interface RowPacket {
  buffer: Buffer;
  offset: number;
  end: number;
  readLengthCodedNumber(): number | null;
}

/**
 * One run of the statement: mysql2's query with our row parser in place of
 * its own, CSV chunks queued for the export, the connection paused while
 * enough are waiting. The end, an error, or a lost connection is kept and
 * seen by the export once the chunks before it are taken.
 */
class CsvRows {
  readonly #connection: Connection;
  readonly #names: string[];
  readonly #fetchLimit: number;
  readonly #killer: QueryKiller;
  readonly #out: CsvChunkWriter;
  #readers: ValueReader[];
  #queued: SourceChunk[] = [];
  #seen = 0;
  #limitKill = false;
  #paused = false;
  #ended = false;
  #failure: unknown = null;
  /** The export is waiting for a chunk. */
  #wake: (() => void) | null = null;
  #handOnScheduled = false;

  constructor(connection: Connection, sql: string, described: PlannedMetadata, fetchLimit: number, killer: QueryKiller) {
    this.#connection = connection;
    this.#names = described.columns.map((c) => c.name);
    this.#readers = described.readers;
    this.#fetchLimit = fetchLimit;
    this.#killer = killer;
    this.#out = new CsvChunkWriter(described.columns.length, CHUNK_BYTES);
    const query = connection.query({ sql, rowsAsArray: true });
    takeRowParser(query, { next: (packet: RowPacket) => this.#row(packet) });
    query.once('fields', (fields: MysqlField[]) => {
      try {
        this.#readers = checkSameColumns(described, fields);
      } catch (error) {
        this.#fail(error);
      }
    });
    query.on('error', (error: unknown) => this.#fail(error));
    query.once('end', () => this.#end());
    // mysql2 tells a connection lost during a query to the connection only, not to the query.
    connection.once('error', this.#lost);
    connection.once('end', this.#lost);
  }

  readonly #lost = (error?: unknown): void => {
    this.#fail(error instanceof Error ? error : Object.assign(new Error('The connection to the database ended.'), { code: 'PROTOCOL_CONNECTION_LOST' }));
  };

  /** One row packet, written as one CSV record (or dropped: past the fetch limit, or after a failure). */
  #row(packet: RowPacket): null {
    if (this.#seen >= this.#fetchLimit || this.#failure !== null) return null;
    this.#seen++;
    const out = this.#out;
    const readers = this.#readers;
    const bytes = packet.buffer;
    try {
      for (let i = 0; i < readers.length; i++) {
        const length = packet.readLengthCodedNumber();
        if (length === null) {
          out.null();
          continue;
        }
        const start = packet.offset;
        packet.offset = start + length;
        writeValue(out, readers[i]!, this.#names[i]!, bytes, start, start + length);
      }
      out.endRecord();
    } catch (error) {
      out.dropRecord();
      this.#fail(error);
      return null;
    }
    if (this.#seen === this.#fetchLimit && !this.#killer.sent) {
      this.#limitKill = true;
      this.#killer.kill();
    }
    if (out.full) {
      this.#queued.push(out.take());
      if (this.#queued.length >= QUEUED_CHUNKS && !this.#paused) {
        this.#paused = true;
        this.#connection.pause();
      }
      this.#wakeUp();
    } else if (this.#wake !== null && !this.#handOnScheduled) {
      // The export waits: what the socket's current read holds goes to it as soon as that read is parsed.
      this.#handOnScheduled = true;
      setImmediate(() => {
        this.#handOnScheduled = false;
        if (this.#wake !== null && this.#out.rows > 0) {
          this.#queued.push(this.#out.take());
          this.#wakeUp();
        }
      });
    }
    return null;
  }

  #fail(error: unknown): void {
    if (this.#failure === null && !this.#ended) this.#failure = error;
    this.#wakeUp();
  }

  #end(): void {
    this.#ended = true;
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  #detach(): void {
    this.#connection.removeListener('error', this.#lost);
    this.#connection.removeListener('end', this.#lost);
    if (this.#paused) {
      this.#paused = false;
      this.#connection.resume();
    }
  }

  async *chunks(): AsyncGenerator<SourceChunk> {
    try {
      for (;;) {
        const queued = this.#queued.shift();
        if (queued !== undefined) {
          if (this.#paused && this.#queued.length < QUEUED_CHUNKS) {
            this.#paused = false;
            this.#connection.resume();
          }
          yield queued;
          continue;
        }
        if (this.#failure !== null) break;
        if (this.#out.rows > 0) {
          yield this.#out.take();
          continue;
        }
        if (this.#ended) return;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      this.#detach();
    }
    const error = this.#failure;
    // The kill this source sent for its own row limit ends the query as every row it wanted arrived.
    if (this.#limitKill && isOurStop(error)) return;
    this.#killer.kill();
    throw error;
  }
}

/**
 * Puts `parser` where mysql2's query keeps its row parser, for the whole
 * query: mysql2 makes its own once the result's fields arrived, and would
 * overwrite one set before then, so the query's slot is replaced by one
 * that always answers ours. mysql2 calls `next(packet)` for every row
 * packet; what it returns is the row it emits, which nothing here reads.
 */
function takeRowParser(query: Query, parser: { next(packet: RowPacket): null }): void {
  Object.defineProperty(query, '_rowParser', { configurable: true, get: () => parser, set: () => undefined });
}
