/**
 * A statement's rows as the core's RowSource: mysql2's query stream (rows
 * arrive as the server sends them, with backpressure on the socket, never
 * a buffered result), each value read from the bytes the server sent and
 * written as CSV records (row-values.ts), in chunks. The columns are planned
 * from the result's field metadata, which arrives before the first row.
 *
 * The export fetches at most `fetchLimit` rows (a row cap + 1, so the core
 * knows there were more): the session's sql_select_limit asks the server for
 * no more, and a statement whose own LIMIT overrides it is stopped here with
 * a KILL QUERY once enough rows arrived.
 */
import type { Connection } from 'mysql2';
import { SluiceError } from '../../../errors.ts';
import type { Readable } from 'node:stream';
import type { PlannedColumn } from '../../../columns/column-plan.ts';
import type { RowSource, SourceChunk } from '../../../worker/export/row-source.ts';
import { mysqlColumns, type MysqlField, type ValueReader } from '../column-types.ts';
import { ER_QUERY_INTERRUPTED } from '../mysql-errors.ts';
import { csvRecord } from '../../../worker/export/csv-record.ts';
import { valueText } from '../row-values.ts';
import type { QueryKiller } from './kill-query.ts';

/** Rows are handed on once this much CSV is waiting, or whenever the socket has nothing more for now. */
const CHUNK_CHARS = 256 * 1024;
const STREAM_ROWS = 2_000;

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
  const run = (): Readable => {
    const query = connection.query({ sql, rowsAsArray: true, typeCast: (field) => field.buffer() });
    // The stream reports the error; a query whose stream was given up must not throw it unheard.
    query.on('error', () => undefined);
    return endWithConnection(connection, query.stream({ highWaterMark: STREAM_ROWS }));
  };
  return { columns: described.columns, source: { cancel: () => killer.kill(), [Symbol.asyncIterator]: () => chunks(run(), described, fetchLimit, killer) } };
}

/** The metadata the running statement sent must plan the columns as its description did, or values would be misread. */
function checkSameColumns(described: PlannedMetadata, fields: MysqlField[]): ValueReader[] {
  const running = mysqlColumns(fields);
  const differs = running.columns.length !== described.columns.length || running.columns.some((c, i) => c.storage !== described.columns[i]!.storage || c.duckType !== described.columns[i]!.duckType);
  if (differs) throw new SluiceError('SQL_ERROR', 'The server described the result differently when running the statement than when preparing it; cast the columns to explicit types.');
  return running.readers;
}

type PlannedMetadata = ReturnType<typeof mysqlColumns>;

/**
 * mysql2 tells a connection lost during a streaming query to the connection
 * only, not to the query: the stream is ended with that error here, or the
 * export would wait for rows that never come.
 */
function endWithConnection(connection: Connection, stream: Readable): Readable {
  const lost = (error?: unknown) => {
    const reason = error instanceof Error ? error : Object.assign(new Error('The connection to the database ended.'), { code: 'PROTOCOL_CONNECTION_LOST' });
    stream.destroy(reason);
  };
  connection.once('error', lost);
  connection.once('end', lost);
  stream.once('close', () => {
    connection.removeListener('error', lost);
    connection.removeListener('end', lost);
  });
  return stream;
}

function isOurStop(error: unknown): boolean {
  return (error as { errno?: unknown } | null)?.errno === ER_QUERY_INTERRUPTED;
}

async function* chunks(stream: Readable, described: PlannedMetadata, fetchLimit: number, killer: QueryKiller): AsyncGenerator<SourceChunk> {
  let readers = described.readers;
  const names = described.columns.map((c) => c.name);
  stream.once('fields', (fields: MysqlField[]) => {
    try {
      readers = checkSameColumns(described, fields);
    } catch (error) {
      stream.destroy(error as Error);
    }
  });
  let text = '';
  let rows = 0;
  let longest = 0;
  let seen = 0;
  let limitKill = false;
  const take = () => {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8: a bound without measuring every line.
    const chunk = { bytes: Buffer.from(text, 'utf8'), rows, longestRow: longest * 3 };
    text = '';
    rows = 0;
    longest = 0;
    return chunk;
  };
  try {
    for await (const row of stream as AsyncIterable<(Buffer | null)[]>) {
      if (seen >= fetchLimit) continue;
      seen++;
      const line = csvRecord(row.map((bytes, i) => valueText(readers[i]!, names[i]!, bytes)));
      if (line.length > longest) longest = line.length;
      text += line;
      rows++;
      if (seen === fetchLimit && !killer.sent) {
        limitKill = true;
        killer.kill();
      }
      if (text.length >= CHUNK_CHARS || stream.readableLength === 0) yield take();
    }
  } catch (error) {
    // The kill this source sent for its own row limit ends the stream as every row it wanted arrived.
    if (!(limitKill && isOurStop(error))) {
      killer.kill();
      throw error;
    }
  }
  if (rows > 0) yield take();
}
