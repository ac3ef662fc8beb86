/**
 * A DuckDB result as the export core's chunk source
 * (worker/export/chunk-row-source.ts): the engine's own result chunks
 * (about 2,048 rows each) fetched one after another, never the whole
 * result, and handed over as they are; the core appends them to its own
 * DuckDB (the appender copies their vectors across instances) and writes
 * Parquet from there, so no value is turned into text. Each row's CSV
 * length, which the byte cap counts, comes with it, computed by the engine
 * in the same statement (csv-length-sql.ts), so only the types whose CSV
 * text csv-line-sql.ts spells out take this path.
 * The source stops at `rowLimit` rows by itself, so a capped export neither
 * reads nor drains the rest; `cancel` interrupts the statement on the
 * engine, and the fetch then fails with DuckDB's interrupt.
 */
import { DuckDBDecimalType, DuckDBTypeId, type DuckDBConnection, type DuckDBDataChunk, type DuckDBPreparedStatement, type DuckDBType } from '@duckdb/node-api';
import type { ChunkRowSource } from '../../../worker/export/chunk-row-source.ts';
import { EngineStop } from './engine-stop.ts';

export interface TableSourceOptions {
  connection: DuckDBConnection;
  /** The statement with each row's CSV length added (csv-length-sql.ts), bound. */
  prepared: DuckDBPreparedStatement;
  /** The result's column types, the length not included. */
  types: DuckDBType[];
  rowLimit: number;
  /** Called once the stream ended, however it ended. */
  onEnd(): void;
}

/** A column's type as the table is declared: by id, so an alias (JSON is a VARCHAR) never needs an extension. */
function typeName(type: DuckDBType): string {
  if (type instanceof DuckDBDecimalType) return `DECIMAL(${type.width}, ${type.scale})`;
  if (type.typeId === DuckDBTypeId.VARCHAR) return 'VARCHAR';
  return type.toString();
}

export function openTableSource(options: TableSourceOptions): ChunkRowSource {
  const { connection, types } = options;
  const stop = new EngineStop(connection);
  async function* chunks(): AsyncGenerator<DuckDBDataChunk> {
    try {
      yield* resultChunks(options, stop);
    } finally {
      options.onEnd();
    }
  }
  return {
    shape: 'duckdb-chunks',
    tableColumns: types.map((t, i) => `c${i} ${typeName(t)}`).join(', '),
    cancel: () => stop.cancel(),
    [Symbol.asyncIterator]: chunks,
  };
}

/** Chunks fetched ahead of the consumer: the engine reads on while the core writes, on the machine's other core. */
const READ_AHEAD = 48;
/** DuckDB's vector size: the most rows a result chunk holds. */
const CHUNK_ROWS = 2048;

/** The result's chunks up to `rowLimit` rows, the last one cut to it, fetched up to READ_AHEAD chunks ahead. */
async function* resultChunks({ prepared, rowLimit }: TableSourceOptions, stop: EngineStop): AsyncGenerator<DuckDBDataChunk> {
  // Started inside the iteration: a statement that computes long before its first row can be cancelled from the start.
  const result = await stop.stream(prepared);
  const ahead: Promise<DuckDBDataChunk | null>[] = [];
  // One fetch at a time on the engine, each chained after the last, so the chunks come in order.
  let last: Promise<unknown> = Promise.resolve();
  // Once a fetch found the end, the fetches chained after it answer the end themselves: each would be a trip
  // through the thread pool, one after another, and the stream waits for them all before it closes (measured:
  // 25-35 ms at the end of every export, READ_AHEAD trips of about 0.6 ms).
  let ended = false;
  const fetchNext = () => {
    const fetched = last.then(async () => {
      if (ended) return null;
      try {
        const chunk = await result.fetchChunk();
        if (chunk === null || chunk.rowCount === 0) ended = true;
        return chunk;
      } catch (error) {
        // A statement that failed (or was interrupted) fails every later fetch too; the first failure is the one reported.
        ended = true;
        throw error;
      }
    });
    last = fetched.catch(() => undefined);
    ahead.push(fetched);
  };
  let left = rowLimit;
  try {
    while (left > 0) {
      // Never more fetches ahead than the rows still wanted fill (a chunk holds at most CHUNK_ROWS), so a capped export does not read on.
      if (ahead.length === 0) fetchNext();
      while (ahead.length < READ_AHEAD && ahead.length * CHUNK_ROWS < left) fetchNext();
      const chunk = await ahead.shift()!;
      if (chunk === null || chunk.rowCount === 0) break;
      if (chunk.rowCount > left) chunk.rowCount = left;
      left -= chunk.rowCount;
      yield chunk;
    }
  } finally {
    // The connection closes after the stream: no fetch may still be running on it.
    await last;
  }
}
