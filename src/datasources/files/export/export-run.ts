/**
 * One export on a files datasource, inside a query worker, on a connection
 * the worker's DuckDB over the folder lends it (folder-engine.ts): the engine's own parser splits
 * the text and names the statement's type, and anything but one SELECT is
 * refused here, on the engine, whatever the API thread's check said (the
 * folder is reachable by the engine, so a COPY or EXPORT into it must
 * never run). The statement runs in a read-only transaction; its columns
 * come from the prepared statement before any row, and its rows stream to
 * the core chunk by chunk: as DuckDB's own chunks when every column's type
 * allows (table-source.ts), otherwise as CSV formatted value by value
 * (chunk-source.ts).
 */
import { DuckDBTypeId, StatementType, type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { SluiceError } from '../../../errors.ts';
import type { ConsumeRows } from '../../driver.ts';
import type { ExportRequest, ExportResult } from '../../../worker/export-types.ts';
import type { FolderEngine } from '../folder-engine.ts';
import { planDuckColumns } from './column-types.ts';
import { openChunkSource } from './chunk-source.ts';
import { openTableSource } from './table-source.ts';
import { withCsvLengthSql } from './csv-length-sql.ts';

export interface RunHooks {
  /** The statement is on the engine (the source has started) / is no longer. */
  started(sql: string): () => void;
}

export async function runExport(engine: FolderEngine, request: ExportRequest, consume: ConsumeRows, hooks: RunHooks): Promise<ExportResult> {
  const lent = await engine.lendForExport();
  const connection = lent.connection;
  // The connection may serve the next export: nothing prepared on it outlives this one.
  const statements: DuckDBPreparedStatement[] = [];
  try {
    await connection.run('BEGIN TRANSACTION READ ONLY');
    const prepared = await prepareRead(connection, request.sql);
    statements.push(prepared);
    bindParams(prepared, request.params);
    const columns = await resultColumns(connection, prepared, request.sql, request.params);
    if (columns.length === 0) throw new SluiceError('VALIDATION_ERROR', 'The statement returns no columns; select at least one column.');
    const rowLimit = request.materialize === 'never' ? request.previewRows + 1 : request.limits.maxRows + 1;
    const types = columns.map((c) => c.type);
    const measured = await prepareMeasured(connection, request.sql, types);
    const onEnd = hooks.started(request.sql);
    if (measured === null) return await consume(planDuckColumns(columns), openChunkSource({ connection, prepared, columns, rowLimit, onEnd }));
    statements.push(measured);
    bindParams(measured, request.params);
    return await consume(planDuckColumns(columns), openTableSource({ connection, prepared: measured, types, rowLimit, onEnd }));
  } finally {
    for (const statement of statements) statement.destroySync();
    await lent.release();
  }
}

/** The statement prepared on the engine, refused unless DuckDB's parser finds exactly one SELECT. */
async function prepareRead(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  const extracted = await connection.extractStatements(sql);
  if (extracted.count !== 1) {
    throw new SluiceError('READ_ONLY_VIOLATION', `Only one statement per query is allowed; found ${extracted.count}.`, { statements: extracted.count });
  }
  const prepared = await extracted.prepare(0);
  if (prepared.statementType !== StatementType.SELECT) {
    prepared.destroySync();
    throw new SluiceError('READ_ONLY_VIOLATION', 'Only SELECT statements run on a files datasource; the engine refused this one before it ran.');
  }
  return prepared;
}

/**
 * The statement's columns, from its preparation. A statement with a column
 * that takes its type from a parameter (`SELECT $1 AS label`) has no columns
 * DuckDB can name until values are bound, and gets them only when it runs:
 * such a statement is run once cut to no rows, its values bound, and its
 * columns are read from that (by DuckDB's names for a subquery's columns,
 * the statement's own unless it repeats one: the second `a` is `a_1`).
 */
async function resultColumns(connection: DuckDBConnection, prepared: DuckDBPreparedStatement, sql: string, params: unknown[]): Promise<{ name: string; type: DuckDBType }[]> {
  const count = prepared.columnCount;
  const resolved = Array.from({ length: count }, (_, i) => prepared.columnTypeId(i) !== DuckDBTypeId.INVALID).every(Boolean);
  if (resolved) return Array.from({ length: count }, (_, i) => ({ name: prepared.columnName(i), type: prepared.columnType(i) }));
  // The statement on lines of its own: a trailing line comment in it ends before the closing parenthesis.
  const typed = await connection.prepare(`SELECT * FROM (\n${sql}\n) AS sluice_typed LIMIT 0`).catch(() => null);
  try {
    if (typed === null || typed.statementType !== StatementType.SELECT) {
      throw new SluiceError('VALIDATION_ERROR', 'A column of the statement takes its type from a parameter; give the parameter one (CAST($1 AS VARCHAR)).');
    }
    bindParams(typed, params);
    const result = await typed.run();
    return result.columnNames().map((name, i) => ({ name, type: result.columnType(i) }));
  } finally {
    typed?.destroySync();
  }
}

/**
 * The statement with each row's CSV length added (csv-length-sql.ts), held
 * to what the statement itself passed: one SELECT. Null when a column's type
 * has no CSV text in SQL, or when the statement does not read the same once
 * wrapped (a trailing semicolon, say); the rows are then formatted in
 * JavaScript.
 */
async function prepareMeasured(connection: DuckDBConnection, sql: string, types: DuckDBType[]): Promise<DuckDBPreparedStatement | null> {
  const measured = withCsvLengthSql(sql, types);
  if (measured === null) return null;
  let prepared: DuckDBPreparedStatement;
  try {
    const extracted = await connection.extractStatements(measured);
    if (extracted.count !== 1) return null;
    prepared = await extracted.prepare(0);
  } catch {
    return null;
  }
  if (prepared.statementType === StatementType.SELECT && prepared.columnCount === types.length + 1) return prepared;
  prepared.destroySync();
  return null;
}

function bindParams(prepared: DuckDBPreparedStatement, params: unknown[]): void {
  if (prepared.parameterCount > params.length) {
    throw new SluiceError('VALIDATION_ERROR', `The statement uses ${prepared.parameterCount} parameter(s) but ${params.length} were given in "params".`);
  }
  if (prepared.parameterCount === 0) return;
  const values = params.slice(0, prepared.parameterCount).map((value): DuckDBValue => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') return value;
    return JSON.stringify(value);
  });
  prepared.bind(values);
}
