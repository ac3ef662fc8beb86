/**
 * The parts of an export whose rows arrive as DuckDB chunks
 * (chunk-row-source.ts): the chunks are appended to a table of the
 * export's DuckDB, in its in-memory database (not a temporary table: the
 * copier's connection reads it), as they come, and each part is written from the table
 * straight to Parquet, with the same columns, types and row groups a CSV
 * part converts to (duckdb-csv.ts). Rows appended but not yet kept are
 * "pending"; only kept rows go into a part, the others are dropped or move
 * on to the next part's table. The table's rowids count its rows in the
 * order they were appended.
 *
 * Given a second connection of the same DuckDB (`copier`), a sealed part is
 * written to Parquet there while the next part's rows are appended on the
 * first: one connection runs one statement at a time, and writing a part
 * was a third of the export's time. At most `maxPendingWrites` parts wait
 * to be written, so a slow disk slows the stream instead of holding every
 * part in memory. Parts are written, and announced, in order.
 */
import { rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DuckDBAppender, DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral, type PlannedColumn } from '../../columns/column-plan.ts';
import { digestFile, type FileStamp } from '../../runtime/digest-file.ts';
import type { ParquetPart } from '../export-types.ts';
import { releaseSpentChunks } from './release-chunks.ts';

let nextTable = 0;

export class TablePartWriter {
  readonly #dir: string;
  readonly #columns: PlannedColumn[];
  readonly #duck: DuckDBConnection;
  /** The table's columns: the result's, then the CSV length the chunks carry. */
  readonly #tableColumns: string;
  readonly #onPart: (part: ParquetPart, hashedAt: FileStamp) => void;
  #table: string | null = null;
  #appender: DuckDBAppender | null = null;
  /** Rows in the table: the kept ones first, then the pending ones. */
  #rows = 0;
  /** Rows kept in the current part (rowids below this). */
  #kept = 0;
  #partBytes = 0;
  #partIndex = 0;
  #done: ParquetPart[] = [];
  readonly #copier: DuckDBConnection;
  readonly #maxPendingWrites: number;
  #pending: Promise<ParquetPart>[] = [];
  #lastWrite: Promise<unknown> = Promise.resolve();

  /** `onPart` hears of each part as soon as its file is final, in order. */
  constructor(
    dir: string,
    columns: PlannedColumn[],
    duck: DuckDBConnection,
    tableColumns: string,
    onPart: (part: ParquetPart, hashedAt: FileStamp) => void = () => undefined,
    copier: DuckDBConnection = duck,
    maxPendingWrites = 1,
  ) {
    this.#copier = copier;
    this.#maxPendingWrites = copier === duck ? 0 : maxPendingWrites;
    this.#dir = dir;
    this.#columns = columns;
    this.#duck = duck;
    this.#tableColumns = `${tableColumns}, sluice_csv_bytes DOUBLE`;
    this.#onPart = onPart;
  }

  /** CSV bytes of the rows kept in the current part. */
  get currentBytes(): number {
    return this.#partBytes;
  }

  /** Rows appended and not yet kept. */
  get pendingRows(): number {
    return this.#rows - this.#kept;
  }

  async append(chunk: DuckDBDataChunk): Promise<void> {
    if (this.#table === null) await this.#create();
    this.#appender ??= await this.#duck.createAppender(this.#table!.split('.')[2]!, 'main', 'memory');
    this.#appender.appendDataChunk(chunk);
    this.#rows += chunk.rowCount;
  }

  /** The first `count` pending rows, of `bytes` CSV bytes, join the current part. */
  keep(count: number, bytes: number): void {
    this.#kept += count;
    this.#partBytes += bytes;
  }

  /** The pending rows are not kept (a cap cut them off). */
  dropPending(): void {
    this.#rows = this.#kept;
  }

  /** The rows kept in the current part so far, as the part will store them (the preview reads them). */
  rowsSoFarSql(): string {
    // What is read must be in the table, not in the appender's buffer.
    this.#appender?.flushSync();
    return this.#table === null ? this.#emptySql() : this.#storedSql(this.#table, this.#kept);
  }

  /** Writes the current part's kept rows to Parquet; pending rows move on to the next part's table. */
  async seal(): Promise<void> {
    if (this.#table === null || this.#kept === 0) return;
    const table = this.#table;
    const rows = this.#kept;
    this.#closeAppender();
    const pending = this.#rows - this.#kept;
    this.#table = null;
    this.#rows = 0;
    this.#kept = 0;
    this.#partBytes = 0;
    try {
      if (pending > 0) {
        await this.#create();
        await this.#duck.run(`INSERT INTO ${this.#table!} SELECT * FROM ${table} WHERE rowid >= ${rows}`);
        this.#rows = pending;
      }
    } catch (error) {
      await this.#duck.run(`DROP TABLE IF EXISTS ${table}`);
      throw error;
    }
    releaseSpentChunks();
    const file = this.#nextFile();
    const write = async () => {
      try {
        return await this.#write(file, this.#storedSql(table, rows), rows);
      } finally {
        await this.#copier.run(`DROP TABLE IF EXISTS ${table}`);
      }
    };
    const written = this.#lastWrite.then(write, write);
    this.#lastWrite = written.catch(() => undefined);
    // Observed by #settleOldest; this keeps an early failure from being "unhandled".
    written.catch(() => undefined);
    this.#pending.push(written);
    while (this.#pending.length > this.#maxPendingWrites) await this.#settleOldest();
  }

  async #settleOldest(): Promise<void> {
    const part = await this.#pending[0]!;
    this.#pending.shift();
    this.#done.push(part);
  }

  /** Writes the last part; returns every part in order. */
  async finish(): Promise<ParquetPart[]> {
    this.dropPending();
    await this.seal();
    while (this.#pending.length > 0) await this.#settleOldest();
    // An artifact of no rows still needs one file: readers find its schema there, and a read of no files fails.
    if (this.#done.length === 0) this.#done.push(await this.#write(this.#nextFile(), this.#emptySql(), 0));
    await this.abandon();
    return this.#done;
  }

  /** Waits for the parts being written and drops the table; the caller removes the directory. */
  async abandon(): Promise<void> {
    this.#closeAppender();
    await Promise.allSettled(this.#pending);
    this.#pending = [];
    const table = this.#table;
    this.#table = null;
    this.#rows = 0;
    this.#kept = 0;
    if (table !== null) await this.#duck.run(`DROP TABLE IF EXISTS ${table}`);
  }

  async #create(): Promise<void> {
    // In the database, not temporary: the copier's connection reads it.
    const table = `memory.main.sluice_part_rows_${nextTable++}`;
    await this.#duck.run(`CREATE TABLE ${table} (${this.#tableColumns})`);
    this.#table = table;
  }

  #closeAppender(): void {
    const appender = this.#appender;
    this.#appender = null;
    appender?.closeSync();
  }

  /** The table's first `rows` rows with the part's columns: each column's storage name and DuckDB type, as a CSV part reads them. */
  #storedSql(table: string, rows: number): string {
    const select = this.#columns.map((c, i) => `CAST(c${i} AS ${c.duckType}) AS ${quoteIdent(c.storageName)}`).join(', ');
    return `SELECT ${select} FROM ${table} WHERE rowid < ${rows}`;
  }

  #emptySql(): string {
    return `SELECT ${this.#columns.map((c) => `CAST(NULL AS ${c.duckType}) AS ${quoteIdent(c.storageName)}`).join(', ')} LIMIT 0`;
  }

  #nextFile(): string {
    return join(this.#dir, `part-${String(this.#partIndex++).padStart(5, '0')}.parquet`);
  }

  async #write(file: string, sql: string, rows: number): Promise<ParquetPart> {
    try {
      await this.#copier.run(`COPY (${sql}) TO ${quoteLiteral(file)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 30000)`);
    } catch (error) {
      rmSync(file, { force: true });
      throw error;
    }
    const { sha256, bytes, stamp } = await digestFile(file);
    const part = { name: basename(file), rows, bytes, sha256 };
    this.#onPart(part, stamp);
    return part;
  }
}
