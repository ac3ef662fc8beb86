/**
 * A DuckDB result as the export core's chunk source
 * (worker/export/chunk-row-source.ts): the engine's own result chunks
 * (about 2,048 rows each) fetched one after another, never the whole
 * result, and handed over as they are; the core appends them to its own
 * DuckDB (the appender copies their vectors across instances) and writes
 * Parquet from there, so no value is turned into text. Each record's CSV
 * length, which the byte cap counts, is computed in SQL from the text
 * csv-line-sql.ts spells out, so only the types it covers take this path.
 * The source stops at `rowLimit` rows by itself, so a capped export neither
 * reads nor drains the rest; `cancel` interrupts the statement on the
 * engine, and the fetch then fails with DuckDB's interrupt.
 */
import { DuckDBDecimalType, DuckDBTypeId, type DuckDBConnection, type DuckDBDataChunk, type DuckDBPreparedStatement, type DuckDBType } from '@duckdb/node-api';
import type { ChunkRowSource } from '../../../worker/export/chunk-row-source.ts';
import { csvLinesSql } from './csv-line-sql.ts';

export interface TableSourceOptions {
  connection: DuckDBConnection;
  prepared: DuckDBPreparedStatement;
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

/** The chunk source of a result of these column types; null when a column's CSV text is not spelled out in SQL. */
export function openTableSource(options: TableSourceOptions): ChunkRowSource | null {
  const { connection, types } = options;
  if (csvLinesSql('SELECT 1', types) === null) return null;
  async function* chunks(): AsyncGenerator<DuckDBDataChunk> {
    try {
      yield* resultChunks(options);
    } finally {
      options.onEnd();
    }
  }
  return {
    shape: 'duckdb-chunks',
    tableColumns: types.map((t, i) => `c${i} ${typeName(t)}`).join(', '),
    csvBytesSql: (rowsSql) => `SELECT strlen(line) + 1 AS len FROM (${csvLinesSql(rowsSql, types)!})`,
    cancel: () => connection.interrupt(),
    [Symbol.asyncIterator]: chunks,
  };
}

/** The result's chunks up to `rowLimit` rows, the last one cut to it. */
async function* resultChunks({ prepared, rowLimit }: TableSourceOptions): AsyncGenerator<DuckDBDataChunk> {
  // Started inside the iteration: a statement that computes long before its first row can be cancelled from the start.
  const result = await prepared.stream();
  let left = rowLimit;
  while (left > 0) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    if (chunk.rowCount > left) chunk.rowCount = left;
    left -= chunk.rowCount;
    yield chunk;
  }
}
