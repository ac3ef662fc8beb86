/**
 * The preview of an export: its first rows, read back with DuckDB from the
 * part being written (the part cutter never ends the first part before
 * them), sent once, as soon as they are known or when the stream ends. The
 * preview's size bounds (preview-bounds-sql.ts) are applied in that same
 * read, so a long value is cut before it reaches JavaScript.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import type { CutCell, PreviewData } from '../export-types.ts';
import { boundedPreviewSql, type PreviewBounds } from './preview-bounds-sql.ts';

/** The part being written, as the preview reads it: a statement over its rows so far, with the part's columns. */
export interface PartSoFar {
  rowsSoFarSql(): string;
}

/** What the preview showed, for the export's result. */
export interface PreviewShown {
  rows: number;
  bounded: boolean;
}

export class ExportPreview {
  /** How many of the first rows the preview shows at most (fewer when the result has fewer or they pass the byte bound). */
  readonly firstRows: number;
  readonly #duck: DuckDBConnection;
  readonly #columns: PlannedColumn[];
  readonly #writer: PartSoFar;
  readonly #bounds: PreviewBounds;
  readonly #onPreview: (preview: PreviewData) => void;
  #shown: PreviewShown | null = null;

  constructor(duck: DuckDBConnection, columns: PlannedColumn[], firstRows: number, bounds: PreviewBounds, writer: PartSoFar, onPreview: (preview: PreviewData) => void) {
    this.firstRows = firstRows;
    this.#duck = duck;
    this.#columns = columns;
    this.#bounds = bounds;
    this.#writer = writer;
    this.#onPreview = onPreview;
  }

  get sent(): boolean {
    return this.#shown !== null;
  }

  /** What the preview sent showed (nothing, unbounded, before it is sent). */
  get shown(): PreviewShown {
    return this.#shown ?? { rows: 0, bounded: false };
  }

  /** Sends the preview of the `rowsWritten` rows written so far; `complete` says they are the whole result. */
  async send(rowsWritten: number, complete: boolean): Promise<void> {
    this.#shown = { rows: 0, bounded: false };
    const wanted = Math.min(rowsWritten, this.firstRows);
    const columns = this.#columns.map((c) => ({ name: c.name, type: c.type }));
    const { rows, cutCells } = wanted > 0 ? await this.#read(wanted, columns) : { rows: [], cutCells: [] };
    const bounded = rows.length < wanted || cutCells.length > 0;
    this.#shown = { rows: rows.length, bounded };
    this.#onPreview({ columns, rows, cutCells, complete: complete && !bounded, bounded });
  }

  async #read(wanted: number, columns: { name: string; type: string }[]): Promise<{ rows: unknown[][]; cutCells: CutCell[] }> {
    // The byte bound covers the whole preview's JSON: what the columns and the empty lists take comes off first.
    const frame = Buffer.byteLength(JSON.stringify({ columns, rows: [], cutCells: [] }));
    // The statement counts a comma after every row and entry; the first of each list has none, hence the 2.
    const bounds = { bytes: this.#bounds.bytes - frame + 2, cellChars: this.#bounds.cellChars };
    const reader = await this.#duck.runAndReadAll(boundedPreviewSql(this.#writer.rowsSoFarSql(), this.#columns, wanted, bounds));
    const rows: unknown[][] = [];
    const cutCells: CutCell[] = [];
    let listed = 0;
    for (const [i, r] of reader.getRowsJS().entries()) {
      const row = JSON.parse(String(r[0])) as unknown[];
      const cuts: CutCell[] = [];
      for (let column = 0; column < this.#columns.length; column++) {
        const chars = r[column + 1];
        if (chars !== null && chars !== undefined) cuts.push({ row: i, column, chars: Number(chars) });
      }
      // DuckDB's JSON text and JSON.stringify's can differ in a number's spelling: the bound holds for what is sent, exactly.
      const added = Buffer.byteLength(JSON.stringify(row)) + cuts.reduce((sum, cut) => sum + JSON.stringify(cut).length + 1, 0) + 1;
      const commas = (rows.length === 0 ? 1 : 0) + (cutCells.length === 0 && cuts.length > 0 ? 1 : 0);
      if (frame + listed + added - commas > this.#bounds.bytes) break;
      listed += added - commas;
      rows.push(row);
      cutCells.push(...cuts);
    }
    return { rows, cutCells };
  }
}
