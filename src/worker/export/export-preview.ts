/**
 * The preview of an export: its first rows, read back with DuckDB from the
 * part being written (the part cutter never ends the first part before
 * them), sent once, as soon as they are known or when the stream ends.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import { rowJsonExpression } from '../../columns/value-encoding.ts';
import type { PreviewData } from '../export-types.ts';
import { readCsvSql, type PartShape } from './duckdb-csv.ts';
import type { PartWriter } from './part-writer.ts';

export class ExportPreview {
  /** How many of the first rows the preview shows (fewer when the result has fewer). */
  readonly firstRows: number;
  readonly #duck: DuckDBConnection;
  readonly #columns: PlannedColumn[];
  readonly #writer: PartWriter;
  readonly #onPreview: (preview: PreviewData) => void;
  #sent = false;

  constructor(duck: DuckDBConnection, columns: PlannedColumn[], firstRows: number, writer: PartWriter, onPreview: (preview: PreviewData) => void) {
    this.firstRows = firstRows;
    this.#duck = duck;
    this.#columns = columns;
    this.#writer = writer;
    this.#onPreview = onPreview;
  }

  get sent(): boolean {
    return this.#sent;
  }

  /** Sends the preview of the `rowsWritten` rows written so far; `complete` says they are the whole result. */
  async send(rowsWritten: number, complete: boolean): Promise<void> {
    this.#sent = true;
    const shown = Math.min(rowsWritten, this.firstRows);
    const written = this.#writer.csvSoFar();
    const rows = shown > 0 ? await readPreview(this.#duck, written.file, written.shape, this.#columns, shown) : [];
    this.#onPreview({ columns: this.#columns.map((c) => ({ name: c.name, type: c.type })), rows, complete });
  }
}

async function readPreview(duck: DuckDBConnection, csvFile: string, shape: PartShape, columns: PlannedColumn[], n: number) {
  const reader = await duck.runAndReadAll(
    `SELECT ${rowJsonExpression(columns)} FROM (${readCsvSql(csvFile, columns, shape)}) LIMIT ${n}`,
  );
  return reader.getRowsJS().map((r) => JSON.parse(String(r[0])) as unknown[]);
}
